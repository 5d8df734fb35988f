// Browser APIs jsdom lacks but the app's libraries expect (react-router needs TextEncoder,
// antd's responsive grid needs matchMedia). Only acts inside the jsdom environment.
import { TextDecoder, TextEncoder } from 'node:util';

if (typeof window !== 'undefined') {
  Object.assign(globalThis, { TextEncoder, TextDecoder });
  if (!window.matchMedia) {
    window.matchMedia = (query: string): MediaQueryList => ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    });
  }
}
