export { tournamentService } from './service';
