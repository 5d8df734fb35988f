import { createMemoryDocumentStore } from '@underdog/documents';
import { describeGameOutcomes } from './game-outcomes.contract';

describeGameOutcomes('memory', async () => createMemoryDocumentStore());
