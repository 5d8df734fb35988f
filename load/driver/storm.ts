// The reconnect storm (`--reconnect-storm`): a gateway stopped in the middle of round 1's
// voting, its players coming back on the others.
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import type { DriverReport } from './driver-contract';
import type { StopSignal, Target } from './target';

/**
 * Round 1's voting as a visitor on `/ws` of `gatewayUrl` sees it: resolves once subscribed, to
 * a promise of when voting opened (epoch ms: the deadline less the round time). Subscribe
 * before the tournament starts.
 */
export async function roundOneVoting(
  gatewayUrl: string,
  tournamentId: string,
  roundSeconds: number,
): Promise<{ opened: Promise<number> }> {
  const socket = new WebSocket(`${gatewayUrl.replace(/^http/, 'ws')}/ws`);
  let opened: (at: number) => void = () => undefined;
  let failed: (error: Error) => void = () => undefined;
  const votingOpened = new Promise<number>((resolve, reject) => {
    opened = resolve;
    failed = reject;
  });
  votingOpened.catch(() => undefined);
  const timer = setTimeout(() => {
    failed(new Error('round 1 did not start within 120 s'));
    socket.terminate();
  }, 120_000);
  votingOpened.finally(() => clearTimeout(timer)).catch(() => undefined);
  await new Promise<void>((subscribed, reject) => {
    socket.on('open', () =>
      socket.send(JSON.stringify({ type: 'subscribe_tournament', tournamentId })),
    );
    socket.on('error', reject);
    socket.on('close', () => failed(new Error('the storm watcher was closed')));
    socket.on('message', (data: Buffer) => {
      const text = data.toString();
      if (text.startsWith('{"type":"game_state_update"')) subscribed();
      else if (text.startsWith('{"type":"round_voting_started"')) {
        const { roundNumber, phaseEndsAt } = JSON.parse(text) as {
          roundNumber: number;
          phaseEndsAt: string;
        };
        if (roundNumber !== 1) return;
        opened(Date.parse(phaseEndsAt) - roundSeconds * 1000);
        socket.close();
      }
    });
  });
  return { opened: votingOpened };
}

/**
 * The storm: once `atShare` of round 1's voting window has passed, stops the last gateway with
 * the signal, and tells when, and which players were on it.
 */
export async function stopMidVoting(
  target: Target,
  voting: { opened: Promise<number> },
  roundSeconds: number,
  storm: { signal: StopSignal; atShare?: number },
  log: (line: string) => void,
) {
  const votingOpenedAt = await voting.opened;
  await sleep(votingOpenedAt + (storm.atShare ?? 0.4) * roundSeconds * 1000 - Date.now());
  const gateway = target.gatewayUrls.length - 1;
  if (!target.stopGateway) throw new Error('this target cannot stop a gateway');
  const stoppedAt = Date.now();
  await target.stopGateway(gateway, storm.signal);
  log(
    `reconnect storm: gateway ${gateway + 1} stopped (${storm.signal}) ${stoppedAt - votingOpenedAt} ms into voting; gone after ${Date.now() - stoppedAt} ms`,
  );
  return { gateway, signal: storm.signal, stoppedAt, votingOpenedAt };
}

/** The usernames of the players that started on `gateway`. */
export function onStoppedGateway(outcomes: DriverReport['outcomes'], gateway: number): Set<string> {
  return new Set(outcomes.filter((o) => o.gateway === gateway).map((o) => o.username));
}
