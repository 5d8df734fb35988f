export { createGameRecords, type GameRecordsOptions } from './game-records';
// The port, all of it: the records, a finished game, `GameRecords` and its mismatch error.
export * from './game-records-port';
export {
  createGameReads,
  DEFAULT_HISTORY_LIMIT,
  type GameDetails,
  type GameReads,
  type GameStatistics,
  type HistoryEntry,
  type ParticipantStanding,
  type RecordedDraw,
  type RoundDetails,
} from './game-reads';
export type { DrawRecord, GameStatus, TournamentSnapshot } from './collections';
