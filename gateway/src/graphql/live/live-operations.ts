/**
 * What the live subscriptions (feeds.ts) read of a graphql-ws operation: its context (the
 * socket and the subscription id, set by server.ts), its one root field and its printed text.
 */
import { Kind, print, type DocumentNode, type FieldNode, type SelectionSetNode } from 'graphql';
import type { Connection } from '../../realtime/core/channels';
import type { RequestOrigin } from '../../session';

/**
 * Each document's text, printed once: graphql-ws hands the same document to every subscriber
 * of an operation (the endpoint checks each operation text once), so a connect storm does not
 * print it per subscriber.
 */
const printedDocuments = new WeakMap<DocumentNode, string>();

export function printedOnce(document: DocumentNode): string {
  let text = printedDocuments.get(document);
  if (text === undefined) printedDocuments.set(document, (text = print(document)));
  return text;
}

/** One graphql-ws socket as the live subscriptions see it (server.ts keeps one per socket). */
export interface LiveSocket {
  /** Its registration in the real-time core. */
  readonly connection: Connection;
  /** The socket's session, resolved once for it (`SocketSession`). */
  currentOrigin(): Promise<RequestOrigin>;
}

/**
 * What graphql-ws's `subscribe` gets as the context of a live subscription (server.ts sets it
 * in `onSubscribe`): the subscription id and the socket, nothing per operation besides.
 */
export interface LiveSubscriptionContext {
  readonly subscriptionId: string;
  readonly socket: LiveSocket;
}

export function isLiveSubscriptionContext(value: unknown): value is LiveSubscriptionContext {
  return (
    typeof (value as Partial<LiveSubscriptionContext> | undefined)?.subscriptionId === 'string'
  );
}

/** The one root field of a subscription (validation allows exactly one), through fragments. */
export function rootField(
  document: DocumentNode,
  selectionSet: SelectionSetNode,
): FieldNode | undefined {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) return selection;
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      const found = rootField(document, selection.selectionSet);
      if (found) return found;
    }
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = document.definitions.find(
        (definition) =>
          definition.kind === Kind.FRAGMENT_DEFINITION &&
          definition.name.value === selection.name.value,
      );
      if (fragment?.kind === Kind.FRAGMENT_DEFINITION) {
        const found = rootField(document, fragment.selectionSet);
        if (found) return found;
      }
    }
  }
  return undefined;
}
