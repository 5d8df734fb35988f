export { MailRejectedError, type Mailer, type OutgoingMail } from './port';
export { createSmtpMailer, type SmtpMailerOptions } from './smtp';
export {
  createMemoryMailer,
  MemoryMailer,
  type MemoryMailerOptions,
  type SentMail,
} from './memory';
export { capturingMailer, defaultMailboxLimit, Mailbox, type CapturedMail } from './capture';
