import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import {
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  ValidationContext,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';
import { onePerOperationRule } from './one-join';

/**
 * What one GraphQL operation may ask for, on both transports, checked before anything runs:
 * the token budget stops the parser itself (a 20,000-alias document is refused after 2,000
 * tokens, without building its tree); aliases, depth and cost are validation rules. The web
 * app's largest operation is far below each (see docs/security.md).
 */
export const graphqlLimits = {
  /** Lexical tokens per document (names, punctuation, values). */
  maxTokens: 2000,
  /** Aliased fields per operation, fragments included. */
  maxAliases: 15,
  /** Nesting of selections. */
  maxDepth: 10,
  /** graphql-armor's cost: 2 per object, 1 per scalar, ×1.5 per level of depth. */
  maxCost: 5000,
} as const;

/**
 * graphql-armor's rules throw their refusal out of `validate` by default; reported instead, it
 * is one more validation error, answered like any other (400 GRAPHQL_VALIDATION_FAILED).
 */
const reportRefusal = {
  propagateOnRejection: false,
  onReject: [
    (context: ValidationContext | null, error: GraphQLError) => context?.reportError(error),
  ],
};

/** The limits' validation rules (graphql-armor, one join per operation), added to GraphQL's own. */
export function limitRules(): ValidationRule[] {
  return [
    maxAliasesRule({ n: graphqlLimits.maxAliases, ...reportRefusal }),
    maxDepthRule({ n: graphqlLimits.maxDepth, ...reportRefusal }),
    costLimitRule({ maxCost: graphqlLimits.maxCost, ...reportRefusal }),
    onePerOperationRule,
  ];
}

/** The codes Apollo gives the same failures over HTTP, so both transports answer alike. */
const PARSE_FAILED = 'GRAPHQL_PARSE_FAILED';
const VALIDATION_FAILED = 'GRAPHQL_VALIDATION_FAILED';

const SUGGESTION = /\s*Did you mean .+\?/g;

/** An error message without graphql-js's "Did you mean …?" hints, which leak the schema. */
export function withoutSuggestions(message: string): string {
  return message.replace(SUGGESTION, '').trim();
}

export interface OperationGuard {
  schema: GraphQLSchema;
  introspection: boolean;
  suggestions: boolean;
}

/**
 * Parses and validates an operation the way Apollo does over HTTP, for the WebSocket transport:
 * the token budget, GraphQL's rules, the limits, no introspection when it is off, no
 * suggestions when they are off. Returns the document, or the errors to answer with.
 */
export function checkOperation(
  guard: OperationGuard,
  query: string,
): { document: DocumentNode } | { errors: GraphQLError[] } {
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens: graphqlLimits.maxTokens });
  } catch (error) {
    const message = error instanceof GraphQLError ? error.message : 'Syntax Error';
    return { errors: [refusal(guard, message, PARSE_FAILED)] };
  }
  const rules = [
    ...specifiedRules,
    ...limitRules(),
    ...(guard.introspection ? [] : [NoSchemaIntrospectionCustomRule]),
  ];
  const errors = validate(guard.schema, document, rules);
  if (errors.length > 0) {
    return { errors: errors.map((error) => refusal(guard, error.message, VALIDATION_FAILED)) };
  }
  return { document };
}

function refusal(guard: OperationGuard, message: string, code: string): GraphQLError {
  return new GraphQLError(guard.suggestions ? message : withoutSuggestions(message), {
    extensions: { code },
  });
}
