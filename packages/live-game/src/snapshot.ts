import type { LiveStore } from '@underdog/store';
import { disqualifiedKey } from './disqualification';
import { gameKeys, playerSlotKeys } from './keys';
import { parseGameState, type GameState } from './state';

export interface PlayerSnapshot {
  isParticipant: boolean;
  isEliminated: boolean;
  /** 0 while still in. */
  eliminatedInRound: number;
  isOfflinePlayer: boolean;
  /** The player's vote in the current round, when cast (offline: the pre-selected one). */
  voteImageId: string | undefined;
  /** Set from the moment an administrator disqualified the player (issue 28). */
  disqualificationReason: string | undefined;
}

export interface LiveGameSnapshot {
  /** Undefined when the engine has not heard of the tournament. */
  state: GameState | undefined;
  remainingCount: number;
  player: PlayerSnapshot | undefined;
}

/** Reads a game's state and, for a signed-in caller, their place in it. */
export async function readLiveGame(
  store: LiveStore,
  tournamentId: string,
  userId: string | undefined,
): Promise<LiveGameSnapshot> {
  const keys = gameKeys(tournamentId);
  const state = parseGameState(await store.hGetAll(keys.state));
  const remainingCount = state?.gameId ? await store.sCard(keys.alive) : 0;
  if (!state || !userId) return { state, remainingCount, player: undefined };
  return { state, remainingCount, player: await readPlayer(store, tournamentId, state, userId) };
}

export async function readPlayer(
  store: LiveStore,
  tournamentId: string,
  state: GameState,
  userId: string,
): Promise<PlayerSnapshot> {
  const keys = gameKeys(tournamentId);
  const slot = playerSlotKeys(tournamentId, userId, state.voteSlots);
  const [player, offline, eliminatedIn, vote, disqualified] = await Promise.all([
    store.hGet(keys.players, userId),
    store.hGet(keys.offline, userId),
    store.hGet(keys.eliminated, userId),
    state.round > 0 ? store.hGet(slot.reserved(state.round), userId) : Promise.resolve(null),
    store.hGet(disqualifiedKey(tournamentId), userId),
  ]);
  return {
    isParticipant: player !== null,
    isEliminated: eliminatedIn !== null,
    eliminatedInRound: Number(eliminatedIn ?? 0),
    isOfflinePlayer: offline !== null,
    voteImageId: vote ?? undefined,
    disqualificationReason:
      disqualified === null ? undefined : (JSON.parse(disqualified) as { reason: string }).reason,
  };
}
