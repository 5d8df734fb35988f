import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { createMongoDocumentStore, type DocumentStore } from '../src';
import { describeDocumentStoreContract } from './document-store.contract';

const url = process.env.UNDERDOG_TEST_MONGO_URL;
if (!url) {
  throw new Error('UNDERDOG_TEST_MONGO_URL is not set: run through the integration global setup');
}
const mongoUrl: string = url;
const dbName = `underdog_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;

afterAll(async () => {
  const connection = await mongoose.createConnection(mongoUrl, { dbName }).asPromise();
  try {
    await connection.dropDatabase();
  } finally {
    await connection.close();
  }
});

describeDocumentStoreContract('mongo', async () => {
  const clients: DocumentStore[] = [];
  const connect = async (): Promise<DocumentStore> => {
    const client = await createMongoDocumentStore({ url: mongoUrl, dbName });
    clients.push(client);
    return client;
  };
  return {
    store: await connect(),
    connectAnother: connect,
    cleanup: async () => {
      await Promise.all(clients.map((client) => client.close()));
    },
  };
});

describe('mongo document store', () => {
  it('fails to start when the server does not answer', async () => {
    await expect(
      createMongoDocumentStore({ url: 'mongodb://127.0.0.1:1', serverSelectionTimeoutMs: 300 }),
    ).rejects.toThrow();
  });
});
