import { Button, Card, Steps, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useGo } from '../../../app/useGo';
import { sampleImageOf } from '../../images/sampleImages';
import {
  DEMO_ROUND,
  demoByPopularity,
  demoOptions,
  demoPlayerCount,
  type DemoOption,
} from '../demo';

const STEPS = [
  { title: '4 images appear', text: 'Every round shows four images.' },
  {
    title: 'Players think',
    text: 'Everyone secretly picks the image they think the fewest will pick.',
  },
  { title: 'Votes revealed', text: 'The votes for each image are counted and shown.' },
  {
    title: 'Least popular wins',
    text: 'Players who picked the least popular image advance; the rest are eliminated.',
  },
  { title: 'Next round', text: 'Survivors play the next round, until one winner remains.' },
];
const STEP_MS = 2_500;

/** The animated five-step demo: the steps advance on their own (a static view with reduced motion). */
function Demo() {
  const [step, setStep] = useState(0);
  useEffect(() => {
    const reduce = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
    if (reduce) return;
    const timer = setInterval(() => setStep((s) => (s + 1) % STEPS.length), STEP_MS);
    return () => clearInterval(timer);
  }, []);
  const round = step === 4 ? DEMO_ROUND + 1 : DEMO_ROUND;
  const options = demoOptions();
  return (
    <Card className="demo" title={<h2 className="card-title">See it in action</h2>}>
      <Steps
        size="small"
        current={step}
        onChange={setStep}
        items={STEPS.map((s) => ({ title: s.title }))}
        className="demo__steps"
      />
      <p className="demo__caption" aria-live="polite">
        <strong>Step {step + 1}:</strong> {STEPS[step]!.text}
      </p>
      <div className={`demo__grid demo__grid--step${step}`}>
        {[0, 1, 2, 3].map((option) => {
          const image = sampleImageOf(round, option);
          const { votes, percentage, isWinner } = options[option]!;
          const winner = isWinner && (step === 3 || step === 2);
          return (
            <figure
              key={option}
              className={`demo__option${winner && step === 3 ? ' demo__option--winner' : ''}`}
            >
              <img src={image.url} alt={image.alt} width={120} height={120} />
              <figcaption>
                {step === 1
                  ? 'Thinking…'
                  : step === 2 || step === 3
                    ? `${votes} votes (${percentage}%)`
                    : image.alt}
                {winner && step === 3 ? ' — WINNER' : ''}
              </figcaption>
            </figure>
          );
        })}
      </div>
    </Card>
  );
}

/** The worked example: the demo round's own votes, most popular first. */
function Example() {
  const [first, second, third, least] = demoByPopularity() as [
    DemoOption,
    DemoOption,
    DemoOption,
    DemoOption,
  ];
  return (
    <>
      {demoPlayerCount()} players start. In round {DEMO_ROUND}, {first.votes} pick the {first.name},{' '}
      {second.votes} the {second.name}, {third.votes} the {third.name} and only {least.votes} the{' '}
      {least.name}: those {least.votes} advance. A few rounds later, 48 players have dropped to 3.
    </>
  );
}

/** Spec §2 Rules: the demo, strategy, offline-mode and example cards, Join Tournament. */
export function RulesPage() {
  const go = useGo();
  return (
    <div className="page">
      <Typography.Title level={1} className="page-title">
        How Underdog Works
      </Typography.Title>
      <Typography.Paragraph>
        Pick the image you think the <strong>fewest</strong> players will pick. The least popular
        image wins the round; everyone who chose a more popular one is eliminated. A tournament has
        17 rounds, and the last player standing takes the prize.
      </Typography.Paragraph>
      <Demo />
      <div className="card-grid">
        <Card title={<h2 className="card-title">Strategy</h2>}>
          <ul className="plain-list">
            <li>Don't pick what you like — pick what others won't.</li>
            <li>The obvious favourite is usually a trap.</li>
            <li>Watch how the crowd thinks and change it up between rounds.</li>
          </ul>
        </Card>
        <Card title={<h2 className="card-title">Offline Mode</h2>}>
          <Typography.Paragraph>
            Can't be there live? Pre-register all 17 choices before the tournament starts (until 5
            minutes before). Your choices are played for you automatically.
          </Typography.Paragraph>
        </Card>
        <Card title={<h2 className="card-title">Example</h2>}>
          <Typography.Paragraph>
            <Example />
          </Typography.Paragraph>
        </Card>
      </div>
      <Button type="primary" size="large" onClick={() => go('/')} className="join-button">
        Join Tournament
      </Button>
    </div>
  );
}
