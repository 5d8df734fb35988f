/**
 * @jest-environment jsdom
 */
import { MockedProvider } from '@apollo/client/testing';
import { renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { useHasOfflineChoices } from '../../src/features/tournaments/hooks/useHasOfflineChoices';
import { HasOfflineChoicesDocument } from '../../src/gql/operations';

describe('the has-offline-choices check', () => {
  it('treats a failed check as no choices and logs it (spec §8)', async () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const failure = new Error('503: Service Unavailable');
    const wrapper = ({ children }: { children: ReactNode }) => (
      <MockedProvider
        mocks={[
          {
            request: { query: HasOfflineChoicesDocument, variables: { tournamentId: 't-1' } },
            error: failure,
          },
        ]}
      >
        {children}
      </MockedProvider>
    );
    const { result } = renderHook(() => useHasOfflineChoices('t-1', true), { wrapper });
    await waitFor(() =>
      expect(warn).toHaveBeenCalledWith(
        expect.stringContaining('has-offline-choices check failed'),
        expect.objectContaining({ message: expect.stringContaining('503') }),
      ),
    );
    expect(result.current).toBe(false);
    warn.mockRestore();
  });
});
