import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';

/**
 * Mutations an operation may select once at most, whatever their aliases: each is one player's
 * one act (a join costs the tournament service a write and the fair-play signals a record), so
 * fifteen aliased `joinTournament`s in one message are fifteen acts for one message's budget.
 */
const oncePerOperation = ['joinTournament'];

/**
 * A validation rule (both transports, `limits.ts`): a mutation operation that selects
 * `joinTournament` more than once — under aliases, or through fragments — is refused before
 * anything runs, with one error naming the field.
 */
export const onePerOperationRule: ValidationRule = (context: ValidationContext): ASTVisitor => ({
  OperationDefinition(operation) {
    if (operation.operation !== 'mutation') return;
    const counts = new Map<string, number>();
    countRootFields(context, operation.selectionSet, counts, new Set());
    for (const field of oncePerOperation) {
      if ((counts.get(field) ?? 0) > 1) {
        context.reportError(
          new GraphQLError(`At most one ${field} per operation; send one operation per join`, {
            nodes: [operation],
          }),
        );
      }
    }
  },
});

function countRootFields(
  context: ValidationContext,
  selectionSet: SelectionSetNode,
  counts: Map<string, number>,
  seen: Set<string>,
): void {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      const name = selection.name.value;
      counts.set(name, (counts.get(name) ?? 0) + 1);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      countRootFields(context, selection.selectionSet, counts, seen);
    } else {
      const name = selection.name.value;
      // A fragment spread twice counts twice; a cycle is the spec rules' error, not a loop here.
      if (seen.has(name)) continue;
      seen.add(name);
      const fragment = context.getFragment(name);
      if (fragment) countRootFields(context, fragment.selectionSet, counts, seen);
      seen.delete(name);
    }
  }
}
