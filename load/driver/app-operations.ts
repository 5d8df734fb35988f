// The web app's own operations, as its Apollo client sends them: the generated documents of
// web/src/gql/operations.ts with `__typename` added by the cache (InMemoryCache's
// addTypename) and printed by graphql's `print`, so the gateway parses, checks and groups the
// very texts a browser sends. Loaded through the web app's own packages.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  CastVoteDocument,
  GameEventsDocument,
  JoinTournamentDocument,
  LiveGameDocument,
  OwnTournamentChangedDocument,
} from '../../web/src/gql/operations';

/** One operation as it goes on the wire: its text and its name. */
export interface AppOperation {
  query: string;
  operationName: string;
}

/** The operations a player's page runs in one live round (GamePage, useLiveGame). */
export interface AppOperations {
  liveGame: AppOperation;
  gameEvents: AppOperation;
  /** The game page's own tournament's news (`tournamentsChanged(tournamentId:)`). */
  ownTournamentChanged: AppOperation;
  joinTournament: AppOperation;
  castVote: AppOperation;
}

/** A GraphQL document (graphql is the web app's dependency, not the driver's: only passed on). */
type DocumentNode = object;

const webRequire = createRequire(join(__dirname, '..', '..', 'web', 'package.json'));

export function appOperations(): AppOperations {
  const { print } = webRequire('graphql') as { print: (document: DocumentNode) => string };
  const { addTypenameToDocument } = webRequire('@apollo/client/utilities') as {
    addTypenameToDocument: (document: DocumentNode) => DocumentNode;
  };
  const operation = (document: DocumentNode, operationName: string): AppOperation => ({
    query: print(addTypenameToDocument(document)),
    operationName,
  });
  return {
    liveGame: operation(LiveGameDocument, 'LiveGame'),
    gameEvents: operation(GameEventsDocument, 'GameEvents'),
    ownTournamentChanged: operation(OwnTournamentChangedDocument, 'OwnTournamentChanged'),
    joinTournament: operation(JoinTournamentDocument, 'JoinTournament'),
    castVote: operation(CastVoteDocument, 'CastVote'),
  };
}
