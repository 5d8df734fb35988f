import { requireVerifiedUser, type Clock, type Logger } from '@underdog/kit';
import {
  readLiveGame,
  readPlayer,
  type LiveGameSnapshot,
  type PlayerSnapshot,
} from '@underdog/live-game';
import type { GameEventsPublisher } from '../adapters/game-events';
import type { LiveGames } from '../adapters/live-games';
import { gameErrors } from '../domain/errors';
import type { GameRecords } from '../persistence';
import type { Actor } from '@underdog/proto';
import type { LiveStore } from '@underdog/store';

/** Joining a game and reading it: what GameService answers. */
export class Players {
  constructor(
    private readonly deps: {
      live: LiveGames;
      store: LiveStore;
      records: GameRecords;
      events: Pick<GameEventsPublisher, 'participantJoined'>;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  /**
   * Verified users, while the tournament is upcoming or live before round 1's voting ends; one
   * device backs one participant. Joining twice answers the same as once.
   */
  async join(actor: Actor | undefined, tournamentId: string): Promise<PlayerSnapshot> {
    const userId = requireVerifiedUser(actor);
    const player = { userId, username: actor?.username ?? '', deviceId: actor?.deviceId ?? '' };
    const now = this.deps.clock.now().getTime();
    const reply = await this.deps.live.join(tournamentId, {
      ...player,
      now,
    });
    if (reply === 'NO_TOURNAMENT') throw gameErrors.tournamentNotFound();
    if (reply === 'JOIN_CLOSED') throw gameErrors.joinClosed();
    if (reply === 'DEVICE_IN_USE') throw gameErrors.deviceInUse();
    const state = await this.deps.live.state(tournamentId);
    if (!state) throw gameErrors.tournamentNotFound();
    if (reply === 'JOINED') {
      this.deps.logger.info({ tournamentId, userId }, 'player joined');
      if (state.gameId) this.recordLateJoin(state.gameId, player, now);
      // So the tournament's participant count follows live joins before the game starts. Not
      // awaited by the player: a lost count is corrected by the next join or the game's start.
      void this.deps.events
        .participantJoined({
          tournamentId,
          gameId: state.gameId,
          userId,
          participantCount: state.participantCount,
          at: new Date(now),
        })
        .catch((error: unknown) =>
          this.deps.logger.warn({ err: error, tournamentId }, 'participant count not published'),
        );
    }
    return readPlayer(this.deps.store, tournamentId, state, userId);
  }

  /** Anyone may watch; a signed-in actor also gets their own place and vote. */
  async liveGame(actor: Actor | undefined, tournamentId: string): Promise<LiveGameSnapshot> {
    const snapshot = await readLiveGame(this.deps.store, tournamentId, actor?.userId || undefined);
    if (!snapshot.state) throw gameErrors.tournamentNotFound();
    return snapshot;
  }

  private recordLateJoin(
    gameId: string,
    player: { userId: string; username: string },
    now: number,
  ) {
    this.deps.records
      .participantsJoined(gameId, [
        {
          userId: player.userId,
          username: player.username,
          isOfflinePlayer: false,
          joinedAt: new Date(now),
        },
      ])
      .catch((error: unknown) =>
        this.deps.logger.error({ err: error, gameId }, 'could not record a late join'),
      );
  }
}
