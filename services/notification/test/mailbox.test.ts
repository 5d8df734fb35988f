import { Mailbox, capturingMailer, createMemoryMailer, type OutgoingMail } from '../src/mailer';
import { RecentIds } from '../src/recent-ids';

const mail = (to: string): OutgoingMail => ({ to, subject: 's', text: 't', html: '<p>h</p>' });

describe('the development mailbox', () => {
  it('lists what was sent newest first, with the time it was sent', async () => {
    const mailbox = new Mailbox();
    let time = 1_000;
    const mailer = capturingMailer(createMemoryMailer({ from: 'x@underdog.test' }), mailbox, {
      now: () => new Date(time++),
    });
    await mailer.send(mail('a@example.test'));
    await mailer.send(mail('b@example.test'));

    expect(mailbox.list()).toEqual([
      { ...mail('b@example.test'), sentAt: new Date(1_001) },
      { ...mail('a@example.test'), sentAt: new Date(1_000) },
    ]);
  });

  it('keeps only the newest 200 messages', () => {
    const mailbox = new Mailbox();
    for (let i = 0; i < 250; i++) mailbox.record(mail(`${i}@example.test`), new Date());
    const listed = mailbox.list();
    expect(listed).toHaveLength(200);
    expect(listed[0]!.to).toBe('249@example.test');
    expect(listed[199]!.to).toBe('50@example.test');
  });

  it('does not record a message whose send failed', async () => {
    const mailbox = new Mailbox();
    const transport = createMemoryMailer({ from: 'x@underdog.test' });
    transport.setReachable(false);
    await expect(
      capturingMailer(transport, mailbox).send(mail('a@example.test')),
    ).rejects.toThrow();
    expect(mailbox.list()).toEqual([]);
  });
});

describe('RecentIds', () => {
  it('forgets the oldest ids beyond its limit', () => {
    const ids = new RecentIds(3);
    for (const id of ['a', 'b', 'c', 'd']) ids.add(id);
    expect(['a', 'b', 'c', 'd'].map((id) => ids.has(id))).toEqual([false, true, true, true]);
  });

  it('keeps an id added again as the newest, and looking one up does not', () => {
    const ids = new RecentIds(2);
    ids.add('a');
    ids.add('b');
    ids.add('a');
    expect(ids.has('b')).toBe(true);
    ids.add('c');
    expect(['a', 'b', 'c'].map((id) => ids.has(id))).toEqual([true, false, true]);
  });
});
