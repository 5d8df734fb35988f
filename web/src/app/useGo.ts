import { useCallback } from 'react';
import { useNavigate, type NavigateOptions } from 'react-router-dom';

/** `navigate` for event handlers: react-router's may return a promise nobody needs to await. */
export function useGo(): (to: string, options?: NavigateOptions) => void {
  const navigate = useNavigate();
  return useCallback(
    (to: string, options?: NavigateOptions) => {
      void navigate(to, options);
    },
    [navigate],
  );
}
