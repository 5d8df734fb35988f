import { Typography } from 'antd';
import { useParams, useSearchParams } from 'react-router-dom';
import type { GameMode } from '../tournaments/rules';

const MODES: GameMode[] = ['live', 'offline', 'watch', 'results'];

/** Reads `?mode=`; live is the default (spec §2). */
export function gameModeOf(search: URLSearchParams): GameMode {
  const mode = search.get('mode');
  return MODES.find((candidate) => candidate === mode) ?? 'live';
}

/**
 * The tournament play screen (/game/:id), loaded on demand. A minimal page for now: the game
 * screen in every phase and mode arrives with the live-game web work.
 */
export default function GamePage() {
  const { id = '' } = useParams();
  const [search] = useSearchParams();
  const mode = gameModeOf(search);
  return (
    <div className="page">
      <Typography.Title level={2}>Tournament</Typography.Title>
      <Typography.Paragraph>
        Tournament ID: {id} · Mode: {mode}
      </Typography.Paragraph>
    </div>
  );
}
