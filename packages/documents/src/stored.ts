import type mongoose from 'mongoose';

/** A document as MongoDB holds it: our `id` is its `_id`. */
export type StoredDocument = { _id: string } & Record<string, unknown>;
export type StoredModel = mongoose.Model<StoredDocument>;
