export {
  createTournamentModule,
  tournamentService,
  type TournamentAdapters,
  type TournamentModule,
} from './service';
export { tournamentConfig, type TournamentConfig } from './config';
