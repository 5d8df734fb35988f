/**
 * The demo's warm-up game: the first bots signed up play one 1-second round at boot, so a finished
 * tournament with its results is there within seconds (started by `Demo`).
 */
import type { Clock } from '@underdog/kit';
import { GamePhase, type Actor } from '@underdog/proto';
import { originOf, sleep, type Bot } from './demo-bots';
import { DEMO_TITLE_PREFIX, type DemoDependencies } from './demo-dependencies';

/**
 * The warm-up game, played by the first bots as soon as they are signed up, so that a finished
 * demo tournament with its statistics and round history is there from the first seconds: its
 * one round lasts 1 s (and its results as long; see the engine's `timingsOfGame`), and the
 * first bot alone picks the first image, so it wins in round 1.
 */
export const WARM_UP_TITLE = `${DEMO_TITLE_PREFIX} Warm-up`;
const WARM_UP_PLAYERS = 3;
const WARM_UP_ROUND_SECONDS = 1;
const WARM_UP_STARTS_IN_MS = 300;
const WARM_UP_POLL_MS = 25;
/** The warm-up gives up (and says so) if its game is not over by then. */
const WARM_UP_MAX_MS = 60_000;

/** What the warm-up plays with: the demo's bots as they sign up, and its admin. */
export interface WarmUp {
  deps: DemoDependencies;
  clock: Clock;
  /** The demo's bots, growing as they sign up. */
  bots: readonly Bot[];
  admin: Actor | undefined;
  isStopped: () => boolean;
}

/** The warm-up game (see `WARM_UP_TITLE`), played by the first bots signed up. */
export async function playWarmUp(warmUp: WarmUp): Promise<void> {
  const { deps, clock, bots, admin, isStopped } = warmUp;
  const started = clock.now().getTime();
  while (bots.length < Math.min(WARM_UP_PLAYERS, deps.bots)) {
    if (isStopped() || clock.now().getTime() - started > WARM_UP_MAX_MS) return;
    await sleep(WARM_UP_POLL_MS);
  }
  const players = bots.slice(0, WARM_UP_PLAYERS);
  if (!admin || players.length === 0) return;
  const tournamentId = await deps.scheduleWarmUp(admin, {
    title: WARM_UP_TITLE,
    description: 'Played by the bots in seconds at start-up: its results are ready to look at.',
    prize: '$100',
    startAt: new Date(clock.now().getTime() + WARM_UP_STARTS_IN_MS),
    roundTimeSeconds: WARM_UP_ROUND_SECONDS,
  });
  for (const bot of players) await deps.games.join(originOf(deps, bot), tournamentId);
  const voting = await phaseOf(warmUp, tournamentId, GamePhase.VOTING, started);
  await Promise.all(
    players.map((bot, index) => {
      const image = voting.images[index === 0 ? 0 : 1];
      if (!image) return Promise.resolve();
      return deps.games
        .vote(originOf(deps, bot), {
          tournamentId,
          roundNumber: voting.roundNumber,
          imageId: image.id,
        })
        .catch((error: unknown) =>
          deps.logger.warn({ err: error, tournamentId }, 'demo: a warm-up vote failed'),
        );
    }),
  );
  const over = await phaseOf(warmUp, tournamentId, GamePhase.FINISHED, started);
  deps.logger.info(
    {
      tournamentId,
      winner: over.winner?.username,
      seconds: (clock.now().getTime() - started) / 1000,
    },
    'demo: warm-up game played',
  );
}

/** The live game once it reaches `phase` (or the end); fails after `WARM_UP_MAX_MS`. */
async function phaseOf(warmUp: WarmUp, tournamentId: string, phase: GamePhase, since: number) {
  const { deps, clock, isStopped } = warmUp;
  const visitor = deps.originOfSession('', 'demo');
  for (;;) {
    const game = await deps.games.liveGame(visitor, tournamentId);
    if (game.phase === phase || game.phase === GamePhase.FINISHED) return game;
    if (isStopped() || clock.now().getTime() - since > WARM_UP_MAX_MS) {
      throw new Error(`the warm-up game never reached ${GamePhase[phase]}`);
    }
    await sleep(WARM_UP_POLL_MS);
  }
}
