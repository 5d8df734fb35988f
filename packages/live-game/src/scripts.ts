/**
 * The atomic steps on a live game, each written twice (Lua for Redis, the same steps over the
 * memory adapter). The engine owns the game's state; the gateway only runs `joinGame` through the
 * engine and `admitVote`/`releaseVote` itself. Every step that moves the game forward checks the
 * fencing token, so a replica that lost its lease cannot write. A round's keys named below
 * (reserved, admitted, ballots, tally, voteIds) are those of the player's vote slot
 * (`playerSlotKeys`, docs/adr/0012); with one slot, the game's own.
 */
export * from './game-scripts';
export * from './vote-scripts';
export * from './apply-scripts';
