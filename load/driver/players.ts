// The lean load driver: many players, each one `/ws` socket with its session cookie, spread over
// several loopback source addresses. It parses as little as it can: the gateway writes the same
// serialised event to every subscriber, so a message is recognised by its `"type"` prefix and
// the few that carry data the driver needs are parsed once per distinct text.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { VOTING_GRACE_MS } from './stats';

/** One seeded player: the session its socket carries and the device it plays from. */
export interface DriverPlayer {
  username: string;
  sessionId: string;
  deviceId: string;
  /** Which tournament it plays (its index in `tournamentIds`). */
  tournament: number;
  /** Which gateway replica it connects to (its index in `gatewayUrls`). */
  gateway: number;
}

export interface DriverOptions {
  gatewayUrls: string[];
  cookieName: string;
  tournamentIds: string[];
  players: DriverPlayer[];
  /** Loopback source addresses to connect from (127.0.0.2, …): each has its own port range. */
  sourceAddresses: string[];
  /** Votes are cast at a random moment in the first `voteSpread` of the voting window (0–1). */
  voteSpread: number;
  /** Upgrades in flight at once while connecting. */
  connectConcurrency: number;
}

/** What one player saw of its round. */
export interface PlayerOutcome {
  username: string;
  tournament: number;
  /** The image it voted for, when it sent a vote. */
  votedImageId?: string;
  /** ms from sending the vote to its answer. */
  ackMs?: number;
  /** When the vote was sent (epoch ms): lines slow answers up with what happened then. */
  votedAt?: number;
  /** `vote_processed`, or the refusal's code. */
  answer?: string;
  /** ms from the round's deadline (`phaseEndsAt` of its voting) to its `results_started`. */
  resultsMs?: number;
}

/** Round 1's results as the engine tallied them (from the first `results_started` seen). */
export interface Tally {
  totalVotes: number;
  votes: Record<string, number>;
  /**
   * When the engine resolved the round, in ms after the close of voting (deadline + grace):
   * `phaseEndsAt` − `duration` of `results_started`. The rest of a player's results latency is
   * the way from the engine to the socket.
   */
  resolvedAfterCloseMs: number;
  /** The close of voting (deadline + grace), epoch ms: what `--cpu-timeline` lines up with. */
  closedAt: number;
}

export interface DriverReport {
  /**
   * This driver's own event-loop delay over the round (ms, p99 and max; one entry per driver
   * process): a pause of the driver delays every answer it reads, and shows as server latency.
   */
  loopDelayMs: Array<{ p99: number; max: number }>;
  /** Per tournament index, the engine's tally of round 1 (absent when no results came). */
  tallies: Record<number, Tally>;
  connected: number;
  connectFailures: number;
  /** Sockets closed by the server or the network before the round's results. */
  dropped: number;
  outcomes: PlayerOutcome[];
}

interface VotingStarted {
  tournamentId: string;
  roundNumber: number;
  phaseEndsAt: string;
  timeRemaining: number;
  round: { images: Array<{ id: string }> };
}

const prefix = (type: string) => `{"type":"${type}"`;
const VOTING_STARTED = prefix('round_voting_started');
const VOTE_PROCESSED = prefix('vote_processed');
const RESULTS = prefix('results_started');
const STATE = prefix('game_state_update');
const ERROR = prefix('error');

/**
 * Drives `players` through one round: connect and subscribe (`start`), vote once when round 1's
 * voting opens, and record the acknowledgement and the results' arrival (`finished`).
 */
export class PlayerDriver {
  private readonly sockets: WebSocket[] = [];
  private readonly outcomes: PlayerOutcome[];
  private readonly timers = new Set<NodeJS.Timeout>();
  private connectFailures = 0;
  /** Per connected player: ms to the upgrade's answer, and from there to the snapshot. */
  readonly openMs: number[] = [];
  readonly snapshotMs: number[] = [];
  private dropped = 0;
  private resultsSeen = 0;
  private onResults: (() => void) | undefined;
  /** The last round_voting_started text parsed, per tournament (all sockets share the text). */
  private readonly votingCache = new Map<number, { raw: string; parsed: VotingStarted }>();
  private closing = false;
  private readonly tallies: Record<number, Tally> = {};

  constructor(private readonly options: DriverOptions) {
    this.outcomes = options.players.map((player) => ({
      username: player.username,
      tournament: player.tournament,
    }));
  }

  /** Connects every player and subscribes it; resolves once each has its snapshot (or failed). */
  async start(): Promise<{
    connected: number;
    failed: number;
    openMs: number[];
    snapshotMs: number[];
  }> {
    const { players, connectConcurrency } = this.options;
    let next = 0;
    const worker = async () => {
      while (next < players.length) {
        const index = next;
        next += 1;
        await this.connect(index).catch(() => {
          this.connectFailures += 1;
        });
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, connectConcurrency) }, worker));
    return {
      connected: players.length - this.connectFailures,
      failed: this.connectFailures,
      openMs: this.openMs,
      snapshotMs: this.snapshotMs,
    };
  }

  /** Resolves when every connected player got round 1's results, or after `timeoutMs`. */
  finished(timeoutMs: number): Promise<DriverReport> {
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        loop.disable();
        this.onResults = undefined;
        resolve({
          ...this.report(),
          loopDelayMs: [{ p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 }],
        });
      };
      const timer = setTimeout(done, timeoutMs);
      this.onResults = () => {
        if (this.resultsSeen >= this.options.players.length - this.connectFailures - this.dropped) {
          done();
        }
      };
      this.onResults();
    });
  }

  report(): DriverReport {
    return {
      loopDelayMs: [],
      tallies: this.tallies,
      connected: this.options.players.length - this.connectFailures,
      connectFailures: this.connectFailures,
      dropped: this.dropped,
      outcomes: this.outcomes,
    };
  }

  close(): void {
    this.closing = true;
    for (const timer of this.timers) clearTimeout(timer);
    for (const socket of this.sockets) socket.terminate();
  }

  private connect(index: number): Promise<void> {
    const { gatewayUrls, cookieName, tournamentIds, sourceAddresses } = this.options;
    const player = this.options.players[index]!;
    const outcome = this.outcomes[index]!;
    const tournamentId = tournamentIds[player.tournament]!;
    const base = gatewayUrls[player.gateway]!.replace(/^http/, 'ws');
    const url = `${base}/ws?deviceId=${encodeURIComponent(player.deviceId)}`;
    const localAddress = sourceAddresses[index % sourceAddresses.length];
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, {
        headers: { cookie: `${cookieName}=${player.sessionId}` },
        perMessageDeflate: false,
        ...(localAddress ? { localAddress } : {}),
      });
      let subscribed = false;
      let voteSentAt = 0;
      const connectStarted = performance.now();
      let openedAt = 0;
      let scheduled = false;
      socket.on('open', () => {
        openedAt = performance.now();
        this.openMs.push(openedAt - connectStarted);
        this.sockets.push(socket);
        socket.send(JSON.stringify({ type: 'subscribe_tournament', tournamentId }));
      });
      socket.on('error', (error) => {
        if (!subscribed) reject(error);
      });
      socket.on('close', () => {
        if (!subscribed) reject(new Error('closed before its snapshot'));
        else if (!this.closing && outcome.resultsMs === undefined) this.dropped += 1;
      });
      socket.on('message', (data: Buffer, isBinary: boolean) => {
        if (isBinary) return;
        const text = data.toString();
        if (text.startsWith(VOTE_PROCESSED)) {
          if (voteSentAt && outcome.answer === undefined) {
            outcome.ackMs = performance.now() - voteSentAt;
            outcome.answer = 'vote_processed';
          }
        } else if (text.startsWith(VOTING_STARTED)) {
          const voting = this.votingStarted(player.tournament, text);
          if (voting.roundNumber !== 1 || scheduled) return;
          scheduled = true;
          const images = voting.round.images;
          const imageId = images[Math.floor(Math.random() * images.length)]!.id;
          const windowMs = Math.max(0, Date.parse(voting.phaseEndsAt) - Date.now());
          const delay = Math.random() * windowMs * this.options.voteSpread;
          const timer = setTimeout(() => {
            this.timers.delete(timer);
            outcome.votedImageId = imageId;
            voteSentAt = performance.now();
            outcome.votedAt = Date.now();
            socket.send(
              JSON.stringify({
                type: 'game_action',
                tournamentId,
                action: 'image_select',
                playerId: player.username,
                imageId,
                round: 1,
                timestamp: new Date().toISOString(),
              }),
            );
          }, delay);
          this.timers.add(timer);
        } else if (text.startsWith(RESULTS)) {
          const voting = this.votingCache.get(player.tournament)?.parsed;
          if (outcome.resultsMs !== undefined || !voting || voting.roundNumber !== 1) return;
          outcome.resultsMs = Date.now() - Date.parse(voting.phaseEndsAt);
          this.resultsSeen += 1;
          if (!this.tallies[player.tournament]) {
            this.tallies[player.tournament] = tallyOf(text, Date.parse(voting.phaseEndsAt));
          }
          this.onResults?.();
        } else if (text.startsWith(STATE)) {
          if (!subscribed) {
            subscribed = true;
            this.snapshotMs.push(performance.now() - openedAt);
            resolve();
          }
        } else if (text.startsWith(ERROR)) {
          const { code } = JSON.parse(text) as { code: string };
          if (voteSentAt && outcome.answer === undefined) {
            outcome.ackMs = performance.now() - voteSentAt;
            outcome.answer = code;
          } else if (!subscribed) {
            reject(new Error(`subscribe refused: ${code}`));
          }
        }
      });
    });
  }

  private votingStarted(tournament: number, raw: string): VotingStarted {
    const cached = this.votingCache.get(tournament);
    if (cached?.raw === raw) return cached.parsed;
    const parsed = JSON.parse(raw) as VotingStarted;
    this.votingCache.set(tournament, { raw, parsed });
    return parsed;
  }
}

function tallyOf(raw: string, deadline: number): Tally {
  const { totalVotes, results, duration, phaseEndsAt } = JSON.parse(raw) as {
    totalVotes: number;
    results: Array<{ imageId: string; votes: number }>;
    duration: number;
    phaseEndsAt: string;
  };
  const closedAt = deadline + VOTING_GRACE_MS;
  return {
    totalVotes,
    votes: Object.fromEntries(results.map((result) => [result.imageId, result.votes])),
    resolvedAfterCloseMs: Date.parse(phaseEndsAt) - duration * 1000 - closedAt,
    closedAt,
  };
}
