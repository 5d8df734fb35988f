/** Which servers to start; each defaults to true. */
export interface StartOptions {
  redis?: boolean;
  kafka?: boolean;
  mongo?: boolean;
  smtp?: boolean;
  /** Where server logs go; defaults to `<cache>/infra/logs/<timestamp>-<pid>`. */
  logDir?: string;
}

/** Running infrastructure. A server that was not asked for has an empty URL. */
export interface Infra {
  redisUrl: string;
  kafkaBrokers: string[];
  mongoUrl: string;
  smtpUrl: string;
  smtpApiUrl: string;
  /** One line per server: what it is, how it runs, where it listens, where its log is. */
  describe(): string;
  stop(): Promise<void>;
}

export type ServerName = 'redis' | 'kafka' | 'mongo' | 'smtp';

/** One started server, whichever way it was provided. */
export interface ServerHandle {
  name: ServerName;
  /** Connection string: redis://, host:port for Kafka, mongodb://, smtp://. */
  url: string;
  /** Only the SMTP sink has one: the HTTP base of its /messages API. */
  apiUrl?: string;
  /** E.g. "kafka 3.9.1 (local process, KRaft, ready in 9.1s) at 127.0.0.1:40123". */
  description: string;
  stop(): Promise<void>;
}

/** A message the SMTP sink received, as served by `GET /messages`. */
export interface SinkMessage {
  /** Envelope recipients (RCPT TO), so Bcc recipients appear too. */
  to: string[];
  /** Envelope sender (MAIL FROM). */
  from: string;
  subject: string;
  text: string;
  html: string;
  /** The whole message as received after DATA. */
  raw: string;
  /** ISO 8601. */
  receivedAt: string;
}
