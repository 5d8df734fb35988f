// (b) The same live round over graphql-ws on `/graphql` (docs/api-ws.md, second part): each socket
// subscribes to gameEvents and votes with the castVote mutation over the same socket, measuring
// the acknowledgement (castVote's answer) and the results fan-out (voting end → RoundResults).
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

const GAME_EVENTS = `subscription ($id: ID!) {
  gameEvents(tournamentId: $id) {
    __typename
    ... on GameSnapshot { game { phase roundNumber phaseEndsAt images { id } player { voteImageId } } }
    ... on RoundVotingStarted { roundNumber phaseEndsAt images { id } }
    ... on RoundResults { roundNumber totalVotes winningImageIds }
    ... on GameEnded { roundsPlayed }
  }
}`;
const CAST_VOTE = `mutation ($id: ID!, $round: Int!, $image: ID!) {
  castVote(tournamentId: $id, roundNumber: $round, imageId: $image) { roundNumber imageId }
}`;

export default function play(data) {
  const tournamentId = data.tournament.id;
  const giveUpAt = giveUpAtMs(data);

  for (const { player, index, openAfterMs } of myPlayers(data)) {
    setTimeout(() => {
      const me = new Player(index, data.clockOffset);
      let opened = false;
      const socket = new WebSocket(`${wsBase}/graphql`, 'graphql-transport-ws', {
        headers: { Origin: origin, Cookie: player.cookie, 'X-Device-ID': player.deviceId },
        tags: { name: '/graphql (ws)' },
      });
      const stop = setTimeout(() => socket.close(), Math.max(0, giveUpAt - Date.now()));
      const send = (message) => socket.send(JSON.stringify(message));
      const vote = (round, images, phaseEndsAt, alreadyVoted) => {
        const imageId = me.votingOpen(round, images, phaseEndsAt, alreadyVoted);
        if (!imageId) return;
        send({
          id: `vote-${round}`,
          type: 'subscribe',
          payload: { query: CAST_VOTE, variables: { id: tournamentId, round, image: imageId } },
        });
      };
      const onEvent = (event) => {
        switch (event.__typename) {
          case 'GameSnapshot':
            if (event.game.phase === 'voting') {
              vote(
                event.game.roundNumber,
                event.game.images,
                event.game.phaseEndsAt,
                Boolean(event.game.player && event.game.player.voteImageId),
              );
            }
            break;
          case 'RoundVotingStarted':
            vote(event.roundNumber, event.images, event.phaseEndsAt, false);
            break;
          case 'RoundResults':
            if (me.results(event.roundNumber, event.totalVotes, event.winningImageIds))
              socket.close();
            break;
          case 'GameEnded':
            socket.close();
            break;
          default:
        }
      };

      socket.addEventListener('open', () => {
        opened = true;
        connectFailed.add(false);
        send({ type: 'connection_init', payload: {} });
      });
      socket.addEventListener('message', (event) => {
        const message = JSON.parse(event.data);
        if (message.type === 'connection_ack') {
          send({
            id: 'game',
            type: 'subscribe',
            payload: { query: GAME_EVENTS, variables: { id: tournamentId } },
          });
        } else if (message.type === 'ping') {
          send({ type: 'pong' });
        } else if (message.id === 'game' && message.type === 'next') {
          if (message.payload.data) onEvent(message.payload.data.gameEvents);
          else me.refused('SUBSCRIPTION_ERROR');
        } else if (String(message.id).startsWith('vote-') && message.type === 'next') {
          const { data: answer, errors } = message.payload;
          if (answer && answer.castVote) me.acked();
          else
            me.refused(
              (errors && errors[0] && errors[0].extensions && errors[0].extensions.code) ||
                'GRAPHQL_ERROR',
            );
        } else if (message.type === 'error') {
          me.refused(
            (message.payload &&
              message.payload[0] &&
              message.payload[0].extensions &&
              message.payload[0].extensions.code) ||
              'GRAPHQL_ERROR',
          );
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
