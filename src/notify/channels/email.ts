// E-mail, to the account's own verified address (the graph allows no other): nodemailer over
// SMTP_URL, a text body, and the Message-ID made from the message's key, so a mail sent twice
// (a retry after a lost answer) is the same message to the receiving side. Without SMTP_URL the
// embedded simulator's demo prints each mail instead.
import nodemailer from 'nodemailer';
import type { Sender } from '../contracts.js';
import { DeliveryError } from '../contracts.js';

/** SMTP's own timers (connecting, the greeting, an idle socket): a mail server may be slower than a webhook, never minutes. */
const SMTP_TIMEOUT_MS = 30_000;

/** The Message-ID of a message: its key at the From address's domain. */
export const messageId = (key: string, from: string) => `<${key}@${/@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'order-graph.invalid'}>`;

/**
 * The e-mail sender: SMTP when `smtpUrl` is set; else, with `printMail`, each mail written as
 * text to it (the demo); else null (no e-mail channel).
 */
export function emailSender(settings: {
  smtpUrl: string | null;
  printMail: ((text: string) => void) | null;
  emailFrom: string;
}): Sender | null {
  const { smtpUrl, printMail, emailFrom } = settings;
  if (!smtpUrl && !printMail) return null;
  const transport = smtpUrl
    ? nodemailer.createTransport({
        url: smtpUrl,
        connectionTimeout: SMTP_TIMEOUT_MS,
        greetingTimeout: SMTP_TIMEOUT_MS,
        socketTimeout: SMTP_TIMEOUT_MS,
      })
    : nodemailer.createTransport({ jsonTransport: true });
  return async (address, message) => {
    if (address.channel !== 'EMAIL') throw new DeliveryError(`a ${address.channel} address given to e-mail`, true);
    const mail = {
      from: emailFrom,
      to: address.email,
      subject: message.title,
      text: `${message.body}\n\n${message.url}\n`,
      messageId: messageId(message.key, emailFrom),
    };
    try {
      await transport.sendMail(mail);
      if (!smtpUrl) printMail!(`E-mail to ${mail.to}\nSubject: ${mail.subject}\nMessage-ID: ${mail.messageId}\n\n${mail.text}`);
    } catch (error) {
      const { responseCode, code } = error as { responseCode?: number; code?: string };
      // A 5xx answer (no such mailbox, refused) is for good; a 4xx (greylisting, a full mailbox) or a
      // connection failure is worth a retry; a recipient refused is EENVELOPE with the server's code.
      const permanent = typeof responseCode === 'number' && responseCode >= 500;
      throw new DeliveryError(
        `the mail server ${typeof responseCode === 'number' ? `answered ${responseCode}` : `failed (${code ?? 'no code'})`}`,
        permanent,
      );
    }
  };
}
