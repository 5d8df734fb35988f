import { defineCollection, maxCodePoints, required, Schema } from '../src';
import { plainCast } from '../src/plain-cast';
import { validationModels, type StoredDocument, type StoredModel } from '../src/schema';

// plainCast must answer exactly what mongoose stores, or nothing (and leave it to mongoose).

const votedAt = new Date('2030-01-01T10:00:00.000Z');
let modelOf: ReturnType<typeof validationModels>;
let sequence = 0;
const model = (schema: Schema): StoredModel => {
  sequence += 1;
  return modelOf(defineCollection({ name: `plain_${sequence}`, schema }));
};

const flatSchema = (): Schema =>
  new Schema({
    userId: required(String),
    kind: { type: String, required: true, enum: ['seen', 'voted'] },
    roundNumber: { type: Number, required: true, min: 1, max: 17 },
    isWinner: required(Boolean),
    votedAt: required(Date),
    note: { type: String, maxlength: 5 },
    title: { type: String, validate: maxCodePoints(3) },
    score: Number,
  });

async function mongooseCast(stored: StoredModel, document: StoredDocument): Promise<unknown> {
  const cast = new stored(document);
  await cast.validate();
  return cast.toObject();
}

const valid: StoredDocument = {
  _id: 'v1',
  userId: 'ann',
  kind: 'voted',
  roundNumber: 2,
  isWinner: false,
  votedAt,
};

beforeEach(() => {
  modelOf = validationModels();
});

describe('plainCast', () => {
  it('answers what mongoose stores for documents that fit exactly, fields in its order', async () => {
    const flat = model(flatSchema());
    const documents: StoredDocument[] = [
      valid,
      { ...valid, note: 'short', title: '😀😀😀', score: -0.5 },
      { score: 0, ...valid, isWinner: true, roundNumber: 17, kind: 'seen' },
    ];
    for (const document of documents) {
      const plain = plainCast(flat, document);
      const expected = await mongooseCast(flat, document);
      expect(plain).toEqual(expected);
      expect(Object.keys(plain ?? {})).toEqual(Object.keys(expected as object));
      expect(plain?.votedAt).not.toBe(votedAt);
    }
  });

  it('leaves to mongoose every document it would refuse or convert', async () => {
    const flat = model(flatSchema());
    const { userId: _userId, ...withoutUser } = valid;
    const refused: StoredDocument[] = [
      withoutUser as StoredDocument,
      { ...valid, userId: '' },
      { ...valid, _id: '' },
      { ...valid, kind: 'paused' },
      { ...valid, roundNumber: 0 },
      { ...valid, roundNumber: 18 },
      { ...valid, note: 'too long' },
      { ...valid, title: '😀😀😀😀' },
      { ...valid, colour: 'red' },
      { ...valid, score: null },
      { ...valid, score: undefined },
    ];
    const converted: StoredDocument[] = [
      { ...valid, roundNumber: '2' },
      { ...valid, userId: 5 },
      { ...valid, isWinner: 'true' },
      { ...valid, votedAt: votedAt.toISOString() },
      { ...valid, score: Number.NaN },
      { ...valid, score: Number.POSITIVE_INFINITY },
      { ...valid, votedAt: new Date(Number.NaN) },
    ];
    for (const document of [...refused, ...converted]) {
      expect(plainCast(flat, document)).toBeUndefined();
    }
    // The ones mongoose converts rather than refuses: it still decides how.
    expect(await mongooseCast(flat, converted[0] as StoredDocument)).toMatchObject({
      roundNumber: 2,
    });
  });

  it('decides nothing for a schema mongoose would do more with', () => {
    const hooked = flatSchema();
    hooked.pre('validate', () => undefined);
    const asyncChecked = new Schema({
      userId: { type: String, validate: { validator: async () => true } },
    });
    const schemas = [
      new Schema({ userId: { type: String, default: 'ann' } }),
      new Schema({ userId: { type: String, trim: true } }),
      new Schema({ userId: { type: String, lowercase: true } }),
      new Schema({ userId: { type: String, match: /^a/ } }),
      new Schema({ tags: [String] }),
      new Schema({ settings: Schema.Types.Mixed }),
      new Schema({ prize: new Schema({ amount: Number }, { _id: false }) }),
      new Schema({ prize: { amount: Number } }),
    ];
    for (const schema of schemas) expect(plainCast(model(schema), { _id: 'x' })).toBeUndefined();
    expect(plainCast(model(new Schema({ userId: String })), { _id: 'x' })).toEqual({ _id: 'x' });
    expect(plainCast(model(hooked), valid)).toBeUndefined();
    expect(plainCast(model(asyncChecked), { _id: 'x', userId: 'ann' })).toBeUndefined();
    expect(plainCast(model(flatSchema()), valid)).toBeDefined();
  });
});
