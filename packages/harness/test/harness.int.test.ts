// Proves that the harness hands the integration tests real servers that answer their protocols.
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import Redis from 'ioredis';
import { Kafka, Partitioners, logLevel } from 'kafkajs';
import mongoose from 'mongoose';
import { smtpSinkClient } from '../src/index';
import { testInfra } from '../src/test-env';

const infra = testInfra();

describe('harness: redis', () => {
  it('stores and returns a value', async () => {
    const redis = new Redis(infra.redisUrl, { maxRetriesPerRequest: 1 });
    try {
      const key = `harness:${randomUUID()}`;
      await redis.set(key, 'underdog', 'EX', 60);
      await expect(redis.get(key)).resolves.toBe('underdog');
    } finally {
      redis.disconnect();
    }
  });
});

describe('harness: kafka', () => {
  it('creates a topic, then produces and consumes a message', async () => {
    const kafka = new Kafka({
      clientId: 'harness-test',
      brokers: infra.kafkaBrokers,
      // Retriable errors while the first group coordinator loads are noise; real ones reject.
      logLevel: logLevel.NOTHING,
    });
    const topic = `harness-${randomUUID()}`;
    const admin = kafka.admin();
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    const consumer = kafka.consumer({ groupId: `harness-${randomUUID()}` });
    try {
      await admin.connect();
      await expect(admin.createTopics({ topics: [{ topic, numPartitions: 3 }] })).resolves.toBe(
        true,
      );

      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const received = new Promise<string>((resolveMessage) => {
        void consumer.run({
          eachMessage: async ({ message }) => resolveMessage(message.value?.toString() ?? ''),
        });
      });

      await producer.connect();
      await producer.send({ topic, messages: [{ key: 'k', value: 'hello underdog' }] });
      await expect(received).resolves.toBe('hello underdog');
    } finally {
      await consumer.disconnect();
      await producer.disconnect();
      await admin.disconnect();
    }
  });
});

describe('harness: mongo', () => {
  it('inserts and finds a document, and a unique index rejects a duplicate', async () => {
    const connection = mongoose.createConnection(infra.mongoUrl, {
      dbName: `harness_${randomUUID().slice(0, 8)}`,
    });
    try {
      await connection.asPromise();
      const Player = connection.model(
        'Player',
        new mongoose.Schema({
          email: { type: String, required: true, unique: true },
          name: String,
        }),
      );
      await Player.init();

      await Player.create({ email: 'ada@example.com', name: 'Ada' });
      const found = await Player.findOne({ email: 'ada@example.com' }).lean();
      expect(found?.name).toBe('Ada');

      await expect(Player.create({ email: 'ada@example.com', name: 'Copy' })).rejects.toMatchObject(
        {
          code: 11000,
        },
      );
      await expect(Player.countDocuments()).resolves.toBe(1);
    } finally {
      await connection.dropDatabase().catch(() => undefined);
      await connection.close();
    }
  });
});

/** A minimal SMTP client: sends a command and waits for the server's complete reply. */
class SmtpConversation {
  private buffer = '';
  private waiter: (() => void) | undefined;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.waiter?.();
    });
  }

  static async open(url: string): Promise<SmtpConversation> {
    const { hostname, port } = new URL(url);
    const socket = connect({ host: hostname, port: Number(port) });
    await new Promise<void>((resolveConnect, reject) => {
      socket.once('connect', resolveConnect);
      socket.once('error', reject);
    });
    return new SmtpConversation(socket);
  }

  /** A reply is complete at its last line, the one with a space after the code. */
  async reply(): Promise<string> {
    for (;;) {
      const match = /^(\d{3}) .*\r\n/m.exec(this.buffer);
      if (match) {
        const end = match.index + match[0].length;
        const reply = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end);
        return reply;
      }
      await new Promise<void>((resolveData) => (this.waiter = resolveData));
    }
  }

  async send(line: string, expectedCode: string): Promise<void> {
    this.socket.write(`${line}\r\n`);
    const reply = await this.reply();
    expect(reply.slice(0, 3)).toBe(expectedCode);
  }

  close(): void {
    this.socket.end();
  }
}

describe('harness: smtp sink', () => {
  it('receives a mail over SMTP and shows it over HTTP', async () => {
    const sink = smtpSinkClient(infra.smtpApiUrl);
    const to = `player-${randomUUID().slice(0, 8)}@example.com`;
    const smtp = await SmtpConversation.open(infra.smtpUrl);
    try {
      expect((await smtp.reply()).slice(0, 3)).toBe('220');
      await smtp.send('EHLO harness.test', '250');
      await smtp.send('MAIL FROM:<noreply@underdog.test>', '250');
      await smtp.send(`RCPT TO:<${to}>`, '250');
      await smtp.send('DATA', '354');
      const body = [
        'From: Underdog <noreply@underdog.test>',
        `To: <${to}>`,
        'Subject: =?UTF-8?Q?You_won_=E2=9C=93?=',
        'MIME-Version: 1.0',
        'Content-Type: multipart/alternative; boundary="b1"',
        '',
        '--b1',
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: quoted-printable',
        '',
        'Your image was the least popular =E2=80=94 congratulations.',
        '--b1',
        'Content-Type: text/html; charset=utf-8',
        '',
        '<p>Your image was the least popular.</p>',
        '--b1--',
        '.',
      ];
      await smtp.send(body.join('\r\n'), '250');
      await smtp.send('QUIT', '221');
    } finally {
      smtp.close();
    }

    const mail = await sink.waitFor((m) => m.to.includes(to), 10_000);
    expect(mail).toMatchObject({
      from: 'noreply@underdog.test',
      subject: 'You won ✓',
      text: expect.stringContaining('least popular — congratulations') as unknown,
    });
    expect(mail.html.trim()).toBe('<p>Your image was the least popular.</p>');
    expect(mail.raw).toContain('Content-Type: multipart/alternative');
    expect(Date.parse(mail.receivedAt)).not.toBeNaN();
  });
});
