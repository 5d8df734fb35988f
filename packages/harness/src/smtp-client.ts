import { setTimeout as sleep } from 'node:timers/promises';
import type { SinkMessage } from './types';

export interface SmtpSinkClient {
  /** Everything received so far, newest first. */
  messages(): Promise<SinkMessage[]>;
  clear(): Promise<void>;
  /** Resolves with the newest message matching `predicate`; rejects after `timeoutMs`. */
  waitFor(predicate: (message: SinkMessage) => boolean, timeoutMs?: number): Promise<SinkMessage>;
}

function summary(messages: SinkMessage[]): string {
  if (messages.length === 0) return 'the sink holds no messages';
  const lines = messages.slice(0, 10).map((m) => `  to ${m.to.join(', ')}: ${m.subject}`);
  return `the sink holds ${messages.length} message(s):\n${lines.join('\n')}`;
}

export function smtpSinkClient(apiUrl: string): SmtpSinkClient {
  const endpoint = `${apiUrl.replace(/\/+$/, '')}/messages`;

  const messages = async (): Promise<SinkMessage[]> => {
    const response = await fetch(endpoint);
    if (!response.ok) throw new Error(`GET ${endpoint} answered ${response.status}`);
    return (await response.json()) as SinkMessage[];
  };

  const clear = async (): Promise<void> => {
    const response = await fetch(endpoint, { method: 'DELETE' });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`DELETE ${endpoint} answered ${response.status}`);
  };

  // Not test-support's `waitFor` (issue 27 point 5): the harness depends on the kit only, and this
  // one is the mail sink's API, whose failure lists the mails that did arrive.
  const waitFor = async (
    predicate: (message: SinkMessage) => boolean,
    timeoutMs = 10_000,
  ): Promise<SinkMessage> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const all = await messages();
      const found = all.find(predicate);
      if (found !== undefined) return found;
      if (Date.now() > deadline) {
        throw new Error(`no matching mail arrived within ${timeoutMs}ms; ${summary(all)}`);
      }
      await sleep(100);
    }
  };

  return { messages, clear, waitFor };
}
