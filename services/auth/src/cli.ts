import { ConfigError, type Environment } from '@underdog/kit';
import { AuthService, Role } from '@underdog/proto';
import { appErrorFromRpc, createClient, createHttpTransport, type Transport } from '@underdog/rpc';
import { cliConfig } from './config';

export const cliUsage = [
  'usage: auth-cli grant-admin <email>',
  '       auth-cli revoke-admin <email>',
  '',
  'Calls the auth service at AUTH_URL (default http://127.0.0.1:8081), signed with',
  "SERVICE_TOKEN_SECRET (the deployment's; the auth pod has it).",
].join('\n');

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Where the auth service is reached; by default over HTTP at AUTH_URL. */
  transport?: Transport;
}

/** Exit codes: 0 done, 1 the call failed, 2 bad usage or configuration. */
export async function runCli(
  args: readonly string[],
  env: Environment,
  io: CliIo,
): Promise<number> {
  const [command, email, ...extra] = args;
  const role =
    command === 'grant-admin' ? Role.ADMIN : command === 'revoke-admin' ? Role.USER : undefined;
  if (role === undefined || !email || extra.length > 0) {
    io.err(cliUsage);
    return 2;
  }
  let transport = io.transport;
  if (!transport) {
    try {
      const config = cliConfig(env);
      transport = createHttpTransport(
        config.AUTH_URL,
        { name: 'auth-cli', secret: config.SERVICE_TOKEN_SECRET },
        { defaultTimeoutMs: 10_000 },
      );
    } catch (error) {
      io.err(error instanceof ConfigError ? error.message : String(error));
      return 2;
    }
  }
  try {
    const { user } = await createClient(AuthService, transport).setRole({ email, role });
    const granted = role === Role.ADMIN ? 'is now an admin' : 'is no longer an admin';
    io.out(`${user?.email ?? email} (@${user?.username ?? '?'}) ${granted}`);
    return 0;
  } catch (error) {
    const failure = appErrorFromRpc(error);
    const detail =
      failure.code === 'INTERNAL' && failure.cause instanceof Error
        ? `: ${failure.cause.message}`
        : '';
    io.err(`${command} failed: ${failure.message}${detail}`);
    return 1;
  }
}

// Run as a program (`tsx services/auth/src/cli.ts grant-admin a@b.c`, or its bundle); importing
// the module (tests, a bundler entry list) runs nothing.
if (require.main === module) {
  // A process entry point, like main.ts: the one place that hands the environment to config.
  void runCli(process.argv.slice(2), process.env, {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  }).then((code) => process.exit(code));
}
