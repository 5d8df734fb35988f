// `KAFKA_BROKERS=host:9092 pnpm exec tsx tools/upgrade/drain-topic.ts <from> <group> <to> [partitions]`:
// copies what consumer group <group> has not yet consumed of topic <from> onto topic <to> —
// key, value and headers unchanged — and commits it for <group>, so a renamed topic loses nothing
// (docs/deploy.md, "Upgrading from before the fair-play rename": `player.signals` →
// `fair-play.signals`, group `tournament-player-signals`). Run it once nothing publishes on
// <from> any more; a second run copies nothing. The consumers of <to> store each event once by
// its `event-id`, so a batch copied twice (a run stopped mid-way) adds nothing.
import { createKafkaBus } from '@underdog/bus';
import { createLogger } from '@underdog/kit';
import { drainTopic } from './drain';

async function main(): Promise<void> {
  const [from, groupId, to, partitions = '6'] = process.argv.slice(2);
  const brokers = process.env.KAFKA_BROKERS?.split(',').filter(Boolean) ?? [];
  if (!from || !groupId || !to || brokers.length === 0) {
    console.error(
      'usage: KAFKA_BROKERS=host:9092 tsx tools/upgrade/drain-topic.ts <from> <group> <to> [partitions]',
    );
    process.exit(2);
  }
  const logger = createLogger({ service: 'drain-topic', level: 'warn' });
  const bus = createKafkaBus({ brokers, clientId: 'underdog-drain-topic', logger });
  try {
    const copied = await drainTopic({ bus, from, groupId, to, partitions: Number(partitions) });
    console.log(`${copied} messages of ${from} (group ${groupId}) copied to ${to}`);
  } finally {
    await bus.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
