// The rules page's demo round and its worked example come from these same numbers, so the
// example always tells what the animated demo shows.
import { i18n } from '../../app/i18n';
import { sampleImageOf } from '../images/sampleImages';

/** The demo plays round 1's images (spec §9: images cycle by option index plus round number). */
export const DEMO_ROUND = 1;
/** Votes per option (index 0-3) in the demo round; 48 players in all, as the rules page says. */
export const DEMO_VOTES = [21, 14, 4, 9] as const;

export interface DemoOption {
  option: number;
  /** The image's alt text, e.g. "Yellow sun". */
  alt: string;
  /** How the example names it in the user's language, e.g. "sun". */
  name: string;
  votes: number;
  percentage: number;
  /** The least popular image: its players advance. */
  isWinner: boolean;
}

/** The demo round's four options, in option order. */
export function demoOptions(): DemoOption[] {
  const total = DEMO_VOTES.reduce((sum, votes) => sum + votes, 0);
  const fewest = Math.min(...DEMO_VOTES);
  return DEMO_VOTES.map((votes, option) => {
    const { alt, url } = sampleImageOf(DEMO_ROUND, option);
    return {
      option,
      alt,
      name: i18n.t(`images.${url.replace(/^.*\/sample-(\d+)\.svg$/, 'sample$1')}`),
      votes,
      percentage: Math.round((votes / total) * 100),
      isWinner: votes === fewest,
    };
  });
}

/** The players the demo round starts with. */
export function demoPlayerCount(): number {
  return DEMO_VOTES.reduce((sum, votes) => sum + votes, 0);
}

/** The demo's options from the most to the least popular (the example's order). */
export function demoByPopularity(): DemoOption[] {
  return [...demoOptions()].sort((a, b) => b.votes - a.votes);
}
