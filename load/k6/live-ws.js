// (a) A live round with N players on `/ws` (docs/api-ws.md): each VU holds SOCKETS_PER_VU sockets
// (k6/websockets' global event loop), each socket a signed-in player who subscribes, votes when
// voting opens, and measures the acknowledgement (vote_processed) and the results fan-out
// (voting end → results_started). Run: load/README.md.
import { WebSocket } from 'k6/websockets';
import { target } from './lib/config.js';
import {
  connectFailed,
  giveUpAtMs,
  liveOptions,
  liveSetup,
  myPlayers,
  Player,
} from './lib/live.js';

// Checked when the script loads, so a wrong TARGET stops the run before it starts.
const { http: origin, ws: wsBase } = target();

export const options = liveOptions();
export const setup = liveSetup;

export default function play(data) {
  const tournamentId = data.tournament.id;
  const giveUpAt = giveUpAtMs(data);

  for (const { player, index, openAfterMs } of myPlayers(data)) {
    setTimeout(() => {
      const me = new Player(index, data.clockOffset);
      let opened = false;
      const socket = new WebSocket(
        `${wsBase}/ws?deviceId=${encodeURIComponent(player.deviceId)}`,
        null,
        {
          headers: { Origin: origin, Cookie: player.cookie, 'X-Device-ID': player.deviceId },
          tags: { name: '/ws' },
        },
      );
      const stop = setTimeout(() => socket.close(), Math.max(0, giveUpAt - Date.now()));
      const send = (message) => socket.send(JSON.stringify(message));
      const vote = (round, images, phaseEndsAt, alreadyVoted) => {
        const imageId = me.votingOpen(round, images, phaseEndsAt, alreadyVoted);
        if (!imageId) return;
        send({
          type: 'game_action',
          tournamentId,
          action: 'image_select',
          playerId: player.email,
          imageId,
          round,
          timestamp: new Date().toISOString(),
        });
      };

      socket.addEventListener('open', () => {
        opened = true;
        connectFailed.add(false);
        send({ type: 'subscribe_tournament', tournamentId });
      });
      socket.addEventListener('message', (event) => {
        const message = JSON.parse(event.data);
        switch (message.type) {
          case 'game_state_update': {
            const game = message.gameState;
            if (game.phase === 'voting' && game.round) {
              vote(
                game.round.number,
                game.round.images,
                game.phaseEndsAt,
                Boolean(game.player && game.player.voteImageId),
              );
            }
            break;
          }
          case 'round_voting_started':
            vote(message.roundNumber, message.round.images, message.phaseEndsAt, false);
            break;
          case 'vote_processed':
            me.acked();
            break;
          case 'error':
            me.refused(message.code);
            break;
          case 'results_started':
            if (me.results(message.roundNumber, message.totalVotes, message.winningImageIds))
              socket.close();
            break;
          case 'game_finished':
            socket.close();
            break;
          default:
        }
      });
      socket.addEventListener('error', () => {
        if (!opened) connectFailed.add(true);
      });
      socket.addEventListener('close', () => {
        clearTimeout(stop);
        me.finish();
      });
    }, openAfterMs);
  }
}
