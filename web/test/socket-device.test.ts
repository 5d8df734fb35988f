/**
 * @jest-environment jsdom
 */
import { socketConnectionParams, webSocketUrl } from '../src/app/apollo';
import { deviceId } from '../src/app/deviceId';

/**
 * Issue 37 point 7: the device id is in no socket URL (proxies and ingresses log URLs); the app
 * names it in graphql-ws `connection_init` instead, which the gateway reads.
 */
describe("the app socket's device id", () => {
  it('is not in the URL', () => {
    const url = webSocketUrl();
    expect(url).toBe(`ws://${window.location.host}/graphql`);
    expect(url).not.toContain(deviceId());
  });

  it('is in the connection_init payload', () => {
    expect(socketConnectionParams()).toEqual({ deviceId: deviceId() });
    expect(deviceId()).toMatch(/^device-/);
  });
});
