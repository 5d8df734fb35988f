import { Button } from 'antd';
import type { Action } from '../display';
import { useGo } from '../../../app/useGo';

/** A tournament action: a link-like button, or a disabled one when it goes nowhere. */
export function ActionButton({
  action,
  size,
  block,
  onPick,
}: {
  action: Action & { pick?: boolean };
  size?: 'large' | 'middle' | 'small';
  block?: boolean;
  onPick?: () => void;
}) {
  const go = useGo();
  const enabled = Boolean(action.to) || (action.pick === true && onPick !== undefined);
  return (
    <Button
      type="primary"
      size={size}
      block={block}
      disabled={!enabled}
      onClick={() => {
        if (action.pick && onPick) onPick();
        else if (action.to) go(action.to);
      }}
    >
      {action.label}
    </Button>
  );
}
