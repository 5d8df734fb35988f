// The SMTP sink as its own process: jest workers and services under test are other processes,
// so the sink must outlive the one that started the harness and be reachable over the network.
// Usage: tsx main.ts --smtp-port <port> --http-port <port>
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import PostalMime from 'postal-mime';
import { SMTPServer } from 'smtp-server';
import type { SMTPServerAddress, SMTPServerDataStream, SMTPServerSession } from 'smtp-server';
import type { SinkMessage } from '../types';

/** Bounds memory in long CLI sessions; tests clear the sink long before this. */
const maxMessages = 1_000;
const messages: SinkMessage[] = [];

function readStream(stream: SMTPServerDataStream): Promise<Buffer> {
  return new Promise((resolveRead, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolveRead(Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}

function address(entry: SMTPServerAddress | false): string {
  return entry === false ? '' : entry.address;
}

async function store(raw: Buffer, session: SMTPServerSession): Promise<void> {
  const parsed = await PostalMime.parse(raw);
  messages.unshift({
    to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
    from: address(session.envelope.mailFrom),
    subject: parsed.subject ?? '',
    text: parsed.text ?? '',
    html: parsed.html ?? '',
    raw: raw.toString('utf8'),
    receivedAt: new Date().toISOString(),
  });
  messages.length = Math.min(messages.length, maxMessages);
}

function smtpServer(): SMTPServer {
  return new SMTPServer({
    // Accept everything: with or without AUTH, any credentials, plain text only, because services
    // configured for a real relay must work against the sink unchanged, minus TLS.
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    size: 25 * 1024 * 1024,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username ?? 'anonymous' });
    },
    onData(stream, session, callback) {
      readStream(stream)
        .then((raw) => store(raw, session))
        .then(
          () => callback(),
          (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
        );
    },
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function handleHttp(req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? '/', 'http://sink').pathname;
  if (path === '/messages' && req.method === 'GET') {
    sendJson(res, 200, messages);
  } else if (path === '/messages' && req.method === 'DELETE') {
    messages.length = 0;
    res.writeHead(204).end();
  } else if (path === '/health') {
    sendJson(res, 200, { ok: true, messages: messages.length });
  } else {
    sendJson(res, 404, { error: `no route ${req.method ?? ''} ${path}` });
  }
}

function listen(start: (done: () => void) => void): Promise<void> {
  return new Promise((resolveListen) => start(resolveListen));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { 'smtp-port': { type: 'string' }, 'http-port': { type: 'string' } },
  });
  const smtpPort = Number(values['smtp-port']);
  const httpPort = Number(values['http-port']);
  if (!smtpPort || !httpPort) throw new Error('usage: main.ts --smtp-port <n> --http-port <n>');

  const smtp = smtpServer();
  smtp.on('error', (error) => console.error('smtp-sink: smtp error', error));
  const http = createServer(handleHttp);
  await listen((done) => smtp.listen(smtpPort, '127.0.0.1', done));
  await listen((done) => http.listen(httpPort, '127.0.0.1', done));
  console.log(`smtp-sink: smtp on 127.0.0.1:${smtpPort}, http on 127.0.0.1:${httpPort}`);

  const shutdown = (): void => {
    http.close();
    smtp.close(() => process.exit(0));
    // Open SMTP sessions can hold close() open; the harness waits only so long anyway.
    setTimeout(() => process.exit(0), 2_000).unref();
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  console.error('smtp-sink: failed to start', error);
  process.exit(1);
});
