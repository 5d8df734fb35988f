// The server's messages as the players read them: recognised by their first bytes, and only
// the few that carry data the driver needs parsed (once per distinct text: the gateway writes
// the same serialised event to every subscriber).
import { VOTING_GRACE_MS } from '@underdog/rules';
import type { Tally } from './driver-contract';

/** The caller's own vote in a snapshot (`player.voteImageId`, both protocols), or null. */
export function ownVoteOf(snapshot: string): string | null {
  return /"voteImageId":(?:"([^"]*)"|null)/.exec(snapshot)?.[1] ?? null;
}

export interface VotingStarted {
  tournamentId: string;
  roundNumber: number;
  phaseEndsAt: string;
  timeRemaining: number;
  round: { images: Array<{ id: string }> };
}

const prefix = (type: string) => `{"type":"${type}"`;
export const VOTING_STARTED = prefix('round_voting_started');
export const VOTE_PROCESSED = prefix('vote_processed');
export const RESULTS = prefix('results_started');
export const STATE = prefix('game_state_update');
export const ERROR = prefix('error');

/** The last round_voting_started parsed, per tournament: every socket of it shares the text. */
export class VotingStartedCache {
  private readonly cache = new Map<number, { raw: string; parsed: VotingStarted }>();

  get(tournament: number): VotingStarted | undefined {
    return this.cache.get(tournament)?.parsed;
  }

  /** A RoundVotingStarted `next`, parsed once per distinct event (the id prefix differs). */
  app(tournament: number, raw: string): VotingStarted {
    const body = raw.slice(raw.indexOf('"payload":'));
    const cached = this.cache.get(tournament);
    if (cached?.raw === body) return cached.parsed;
    const event = (
      JSON.parse(raw) as {
        payload: { data: { gameEvents: Omit<VotingStarted, 'round'> & VotingStarted['round'] } };
      }
    ).payload.data.gameEvents;
    const parsed: VotingStarted = { ...event, round: { images: event.images } };
    this.cache.set(tournament, { raw: body, parsed });
    return parsed;
  }

  /** A `/ws` round_voting_started. */
  ws(tournament: number, raw: string): VotingStarted {
    const cached = this.cache.get(tournament);
    if (cached?.raw === raw) return cached.parsed;
    const parsed = JSON.parse(raw) as VotingStarted;
    this.cache.set(tournament, { raw, parsed });
    return parsed;
  }
}

/** The `__typename` of a GameEvents `next` (the first field of the app's selection). */
export function eventTypeOf(text: string): string | undefined {
  const marker = '"gameEvents":{"__typename":"';
  const start = text.indexOf(marker);
  if (start < 0) return undefined;
  const from = start + marker.length;
  return text.slice(from, text.indexOf('"', from));
}

/** The refusal code of a graphql-ws answer (`next` with errors, or `error`). */
export function graphqlErrorCode(text: string): string {
  const message = JSON.parse(text) as {
    type: string;
    payload?:
      | { errors?: Array<{ extensions?: { code?: string } }> }
      | Array<{ extensions?: { code?: string } }>;
  };
  const errors = Array.isArray(message.payload) ? message.payload : message.payload?.errors;
  return errors?.[0]?.extensions?.code ?? 'UNKNOWN_ERROR';
}

/**
 * Round 1's tally from a results message: the engine resolved the round `durationSeconds`
 * before the results phase ends, measured from the close of voting (`deadline` + grace).
 */
function tallyFrom(
  results: { totalVotes: number; results: Array<{ imageId: string; votes: number }> },
  durationSeconds: number,
  phaseEndsAt: string,
  deadline: number,
): Tally {
  const closedAt = deadline + VOTING_GRACE_MS;
  return {
    totalVotes: results.totalVotes,
    votes: Object.fromEntries(results.results.map((result) => [result.imageId, result.votes])),
    resolvedAfterCloseMs: Date.parse(phaseEndsAt) - durationSeconds * 1000 - closedAt,
    closedAt,
  };
}

/** Round 1's tally from a RoundResults `next` of the GameEvents subscription. */
export function appTallyOf(raw: string, deadline: number): Tally {
  const event = (
    JSON.parse(raw) as {
      payload: {
        data: {
          gameEvents: {
            totalVotes: number;
            results: Array<{ imageId: string; votes: number }>;
            durationSeconds: number;
            phaseEndsAt: string;
          };
        };
      };
    }
  ).payload.data.gameEvents;
  return tallyFrom(event, event.durationSeconds, event.phaseEndsAt, deadline);
}

/** Round 1's tally from a `/ws` results_started. */
export function tallyOf(raw: string, deadline: number): Tally {
  const event = JSON.parse(raw) as {
    totalVotes: number;
    results: Array<{ imageId: string; votes: number }>;
    duration: number;
    phaseEndsAt: string;
  };
  return tallyFrom(event, event.duration, event.phaseEndsAt, deadline);
}
