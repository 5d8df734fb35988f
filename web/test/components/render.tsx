import { MockedProvider, type MockedResponse } from '@apollo/client/testing';
import { render } from '@testing-library/react';
import { App as AntApp } from 'antd';
import type { ReactElement } from 'react';
import { MemoryRouter } from 'react-router-dom';
import '../../src/app/i18n';
import { ServerClockContext } from '../../src/features/time/hooks/serverClock';

/** Renders a piece of the app with a router, antd's App, mocked GraphQL and a server offset. */
export function renderWith(
  ui: ReactElement,
  {
    offsetMs = 0,
    path = '/',
    mocks = [],
  }: { offsetMs?: number; path?: string; mocks?: MockedResponse[] } = {},
) {
  return render(
    <MockedProvider mocks={mocks}>
      <AntApp>
        <ServerClockContext.Provider value={{ offsetMs }}>
          <MemoryRouter initialEntries={[path]}>{ui}</MemoryRouter>
        </ServerClockContext.Provider>
      </AntApp>
    </MockedProvider>,
  );
}
