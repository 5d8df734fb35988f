import { createMemoryMailer, type MemoryMailer } from '../src/mailer';
import { describeMailerContract } from './mailer.contract';

const from = 'Underdog <no-reply@underdog.test>';

describeMailerContract('in-memory', async () => {
  const mailer = createMemoryMailer({ from });
  return {
    mailer,
    fromAddress: 'no-reply@underdog.test',
    deliveredTo: async (address) => mailer.sent().filter((mail) => mail.to === address),
    unreachableMailer: async () => {
      const unreachable: MemoryMailer = createMemoryMailer({ from });
      unreachable.setReachable(false);
      return unreachable;
    },
    cleanup: () => mailer.close(),
  };
});
