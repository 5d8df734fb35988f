export {
  createGameRecords,
  DrawCommitmentMismatchError,
  type FinishedGame,
  type GameEndedRecord,
  type GameRecords,
  type GameRecordsOptions,
  type GameStartedRecord,
  type ParticipantRecord,
  type RoundResolvedRecord,
  type WinnerChange,
} from './game-records';
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
