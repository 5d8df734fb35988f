// Over 300 lines: the plan, the answer and its completion mirror graphql-js execute for these two fields; apart, each would restate the others.
/**
 * The graphql-ws fast path (issue 36, point 3): the web app's own `castVote` and
 * `joinTournament` documents go straight to what their resolvers call, without graphql-js
 * `execute` and without a context spreading every service per operation. A document is
 * recognised once, when its text is first checked (server.ts, `checkOnce`); anything it does
 * not recognise, and any variables it cannot take exactly as graphql-js would, takes the general
 * path, so every error of that kind is graphql-js's own. The answer is built as graphql-js
 * builds it: each selected field serialised by its scalar, an error located at its field, a
 * null in a non-null field propagated up to `data: null` (gateway/test/graphql-ws-fast-path).
 */
import {
  GraphQLError,
  Kind,
  execute,
  getOperationAST,
  isNonNullType,
  isObjectType,
  isScalarType,
  locatedError,
  specifiedScalarTypes,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLScalarType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { RequestOrigin } from '../session';
import type { GraphQLContext } from './context';
import { toGraphQLError } from './errors';
import { gameMutations, type CastVoteArgs } from './game/resolvers';

/** What the fast path needs of a socket: whom it speaks for (graphql-ws's `extra`). */
export interface FastSocket {
  currentOrigin(): Promise<RequestOrigin>;
}

type Services = Pick<GraphQLContext, 'games' | 'signals' | 'logger'>;

/** The root fields the fast path answers, and what each calls (shared with the resolvers). */
const roots: Record<
  string,
  (services: Services, origin: RequestOrigin, args: Record<string, unknown>) => Promise<unknown>
> = {
  castVote: (services, origin, args) =>
    gameMutations.castVote(services, origin, args as unknown as CastVoteArgs),
  joinTournament: (services, origin, args) =>
    gameMutations.joinTournament(services, origin, args as { tournamentId: string }),
};

/**
 * One selected field of the root field's object: a built-in scalar with the default resolver,
 * or `__typename`, which Apollo Client's cache adds to every selection the web app sends (the
 * object type's name, `typename`).
 */
type Leaf = ScalarLeaf | { name: '__typename'; node: FieldNode; typename: true };
interface ScalarLeaf {
  name: string;
  node: FieldNode;
  scalar: GraphQLScalarType;
  nonNull: boolean;
}

/** How to answer one document (it is one operation with one root field). */
export interface FastPlan {
  field: string;
  node: FieldNode;
  /** The root field's object type's name (an error message names it). */
  typeName: string;
  /** Each argument, in the field definition's order (as graphql-js builds `args`). */
  args: Array<{ name: string; variable: string; scalar: GraphQLScalarType }>;
  leaves: Leaf[];
}

const builtInScalars = new Set<unknown>(specifiedScalarTypes);

/** The built-in scalar a type is (or is the non-null of), else undefined. */
function builtInScalarOf(
  type: GraphQLOutputType | GraphQLInputType,
): { scalar: GraphQLScalarType; nonNull: boolean } | undefined {
  const nonNull = isNonNullType(type);
  const inner = nonNull ? type.ofType : type;
  return isScalarType(inner) && builtInScalars.has(inner) ? { scalar: inner, nonNull } : undefined;
}

const plain = (node: FieldNode) => !node.alias && !node.directives?.length;

/**
 * The plan for a (validated) document's operation when it is fast-eligible: a mutation without
 * directives whose one root field is `castVote` or `joinTournament`, unaliased, every argument a
 * variable declared non-null of the argument's own type without a default, selecting plain fields
 * (no alias, directive, argument or fragment, each once) of built-in scalar types that have no
 * resolver of their own, and `__typename`. Anything else: undefined (the general path).
 */
export function fastPlanOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
): FastPlan | undefined {
  const operation = getOperationAST(document, operationName ?? undefined);
  if (operation?.operation !== 'mutation' || operation.directives?.length) return undefined;
  const [root, ...others] = operation.selectionSet.selections;
  if (!root || others.length > 0 || root.kind !== Kind.FIELD || !plain(root)) return undefined;
  const field = root.name.value;
  const definition = schema.getMutationType()?.getFields()[field];
  if (!definition || !Object.hasOwn(roots, field)) return undefined;
  const type = definition.type;
  if (!isNonNullType(type) || !isObjectType(type.ofType) || type.ofType.isTypeOf) return undefined;
  const args = argumentsOf(operation, root, definition);
  const leaves = leavesOf(root, type.ofType.getFields());
  if (!args || !leaves) return undefined;
  return { field, node: root, typeName: type.ofType.name, args, leaves };
}

function argumentsOf(
  operation: OperationDefinitionNode,
  root: FieldNode,
  definition: GraphQLField<unknown, unknown>,
): FastPlan['args'] | undefined {
  const given = root.arguments ?? [];
  if (given.length !== definition.args.length) return undefined;
  const args: FastPlan['args'] = [];
  for (const argument of definition.args) {
    const node = given.find((candidate) => candidate.name.value === argument.name);
    const scalar = builtInScalarOf(argument.type);
    if (node?.value.kind !== Kind.VARIABLE || !scalar?.nonNull) return undefined;
    const variable = node.value.name.value;
    const declared = operation.variableDefinitions?.find(
      (candidate) => candidate.variable.name.value === variable,
    );
    if (
      !declared ||
      declared.defaultValue ||
      declared.directives?.length ||
      declared.type.kind !== Kind.NON_NULL_TYPE ||
      declared.type.type.kind !== Kind.NAMED_TYPE ||
      declared.type.type.name.value !== scalar.scalar.name
    ) {
      return undefined;
    }
    args.push({ name: argument.name, variable, scalar: scalar.scalar });
  }
  return args;
}

function leavesOf(
  root: FieldNode,
  fields: Record<string, GraphQLField<unknown, unknown>>,
): Leaf[] | undefined {
  const leaves: Leaf[] = [];
  for (const selection of root.selectionSet?.selections ?? []) {
    if (selection.kind !== Kind.FIELD || !plain(selection)) return undefined;
    const name = selection.name.value;
    if (name === '__typename') {
      if (selection.arguments?.length || leaves.some((leaf) => leaf.name === name))
        return undefined;
      leaves.push({ name, node: selection, typename: true });
      continue;
    }
    const definition = Object.hasOwn(fields, name) ? fields[name] : undefined;
    const scalar = definition && builtInScalarOf(definition.type);
    if (
      !scalar ||
      definition.resolve ||
      selection.arguments?.length ||
      selection.selectionSet ||
      leaves.some((leaf) => leaf.name === name)
    ) {
      return undefined;
    }
    leaves.push({ name, node: selection, ...scalar });
  }
  return leaves.length > 0 ? leaves : undefined;
}

/**
 * A variable's value when graphql-js would take it as it is (a string for ID and String, an
 * integer within 32 bits for Int, a finite number for Float, a boolean for Boolean); undefined
 * when it would coerce it (an ID sent as a number) or refuse it: the general path then answers.
 */
function exactly(scalar: GraphQLScalarType, value: unknown): unknown {
  switch (scalar.name) {
    case 'ID':
    case 'String':
      return typeof value === 'string' ? value : undefined;
    case 'Int':
      // An integer within 32 bits is its own 32-bit truncation.
      return typeof value === 'number' && (value | 0) === value ? value : undefined;
    case 'Float':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
    case 'Boolean':
      return typeof value === 'boolean' ? value : undefined;
    default:
      return undefined;
  }
}

/** The root field's arguments from the operation's variables, or undefined (general path). */
function variablesOf(
  plan: FastPlan,
  variables: ExecutionArgs['variableValues'],
): Record<string, unknown> | undefined {
  if (typeof variables !== 'object' || variables === null || Array.isArray(variables)) {
    return undefined;
  }
  const args: Record<string, unknown> = {};
  for (const { name, variable, scalar } of plan.args) {
    const value = Object.hasOwn(variables, variable)
      ? exactly(scalar, variables[variable])
      : undefined;
    if (value === undefined) return undefined;
    args[name] = value;
  }
  return args;
}

/**
 * The graphql-ws `execute` of `/graphql`: a document with a plan (marked by `plan`) is answered
 * here, its `contextValue` being the socket itself; any other document, or a fast one whose
 * variables the fast path does not take, goes to graphql-js `execute`.
 */
export class FastMutations {
  private readonly plans = new WeakMap<DocumentNode, FastPlan>();

  constructor(
    private readonly services: Services,
    /** The general path's context for a socket (what graphql-ws's `context` hook builds). */
    private readonly contextOf: (socket: FastSocket) => Promise<GraphQLContext>,
  ) {}

  /** Marks a checked document as answered here. */
  plan(document: DocumentNode, plan: FastPlan): void {
    this.plans.set(document, plan);
  }

  execute(args: ExecutionArgs): Promise<ExecutionResult> | ExecutionResult {
    const plan = this.plans.get(args.document);
    if (!plan) return execute(args);
    const socket = args.contextValue as FastSocket;
    const values = variablesOf(plan, args.variableValues);
    return values ? this.answer(plan, socket, values) : this.general(args, socket);
  }

  private async general(args: ExecutionArgs, socket: FastSocket): Promise<ExecutionResult> {
    return execute({ ...args, contextValue: await this.contextOf(socket) });
  }

  private async answer(
    plan: FastPlan,
    socket: FastSocket,
    args: Record<string, unknown>,
  ): Promise<ExecutionResult> {
    // Outside the try, as graphql-ws's `context` hook awaits it before graphql-js executes.
    const origin = await socket.currentOrigin();
    let value: unknown;
    try {
      value = await roots[plan.field]!(this.services, origin, args);
    } catch (error) {
      // What `withAppErrors` and graphql-js make of a resolver's failure.
      return {
        errors: [locatedError(toGraphQLError(error, this.services), [plan.node], [plan.field])],
        data: null,
      };
    }
    return completed(plan, value);
  }
}

/** graphql-js's completion of the root field's value (`completeValue` for these types). */
function completed(plan: FastPlan, value: unknown): ExecutionResult {
  const errors: GraphQLError[] = [];
  const failed = (raw: unknown, node: FieldNode, path: string[]) => {
    errors.push(locatedError(raw, [node], path));
    return { errors, data: null };
  };
  if (value instanceof Error) return failed(value, plan.node, [plan.field]);
  if (value === null || value === undefined) {
    const message = `Cannot return null for non-nullable field Mutation.${plan.field}.`;
    return failed(new Error(message), plan.node, [plan.field]);
  }
  // The default resolver reads a property of an object (the views are plain data).
  const source = (typeof value === 'object' ? value : {}) as Record<string, unknown>;
  const object: Record<string, unknown> = {};
  for (const leaf of plan.leaves) {
    if ('typename' in leaf) {
      object[leaf.name] = plan.typeName;
      continue;
    }
    try {
      object[leaf.name] = leafValue(plan, leaf, source[leaf.name]);
    } catch (raw) {
      if (leaf.nonNull) return failed(raw, leaf.node, [plan.field, leaf.name]);
      errors.push(locatedError(raw, [leaf.node], [plan.field, leaf.name]));
      object[leaf.name] = null;
    }
  }
  const data = { [plan.field]: object };
  return errors.length === 0 ? { data } : { errors, data };
}

function leafValue(plan: FastPlan, leaf: ScalarLeaf, value: unknown): unknown {
  if (value instanceof Error) throw value;
  // A built-in scalar's `serialize` returns a value or throws (never null for a value).
  const serialized = value === null || value === undefined ? null : leaf.scalar.serialize(value);
  if (serialized === null && leaf.nonNull) {
    throw new Error(`Cannot return null for non-nullable field ${plan.typeName}.${leaf.name}.`);
  }
  return serialized;
}
