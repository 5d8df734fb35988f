export {
  createTournamentApp,
  createTournamentService,
  tournamentService,
  type TournamentApp,
  type TournamentServiceOptions,
} from './service';
export { tournamentConfig, type TournamentConfig } from './config';
