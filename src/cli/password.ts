// Where the CLI's password comes from: $ORDER_GRAPH_PASSWORD, a prompt that does not echo, one line of stdin, or --password.
/**
 * An argument is in every process listing (`ps`, /proc/<pid>/cmdline, readable by any user
 * of the machine) and in npm's debug log under ~/.npm/_logs; an environment variable is
 * readable only by the same user (/proc/<pid>/environ) and npm does not log it; a typed or
 * piped password is in neither.
 */
import { EXIT, Failure } from './options.js';
import { printable } from './terminal.js';

/** Longer than any password a person types or a manager generates; what is read from outside has a bound. */
const MAX_PASSWORD_CHARS = 1024;

export const PASSWORD_VARIABLE = 'ORDER_GRAPH_PASSWORD';

export interface PasswordSources {
  /** --password, when given. */
  argument: string | undefined;
  env: NodeJS.ProcessEnv;
  username: string;
  input: NodeJS.ReadStream;
  /** Where the prompt goes (stderr: stdout may be a pipe to jq). */
  output: NodeJS.WriteStream;
  /** One line of warning on stderr. */
  warn(line: string): void;
}

/** The password, from the first source that has one; a usage failure when none has. */
export async function readPassword(sources: PasswordSources): Promise<string> {
  if (sources.argument !== undefined) {
    sources.warn(
      `warning: --password can be read by other users of this machine (ps) and stays in npm's debug log; use ${PASSWORD_VARIABLE} or the prompt`,
    );
    return bounded(sources.argument, '--password');
  }
  const fromEnvironment = sources.env[PASSWORD_VARIABLE];
  if (fromEnvironment) return bounded(fromEnvironment, PASSWORD_VARIABLE);
  const { input, output, username } = sources;
  const typed = input.isTTY ? await promptHidden(`Password for ${printable(username)}: `, input, output) : await firstLine(input);
  if (typed === null) throw new Failure(EXIT.interrupted, 'no password given; stopped');
  if (typed === '') {
    throw new Failure(
      EXIT.usage,
      `no password: set ${PASSWORD_VARIABLE}, type it when asked (on a terminal), or give it as one line on stdin`,
      true,
    );
  }
  return bounded(typed, input.isTTY ? 'the password typed' : 'the password on stdin');
}

function bounded(password: string, from: string): string {
  if (password.length > MAX_PASSWORD_CHARS) throw new Failure(EXIT.usage, `${from} is longer than ${MAX_PASSWORD_CHARS} characters`);
  return password;
}

/**
 * Asks on the terminal with echo off (raw mode: the terminal shows nothing of what is typed)
 * and reads up to Enter. Backspace and Ctrl-U edit; Ctrl-C, or Ctrl-D on an empty line,
 * cancel (null); an escape sequence (an arrow key) is ignored whole.
 */
function promptHidden(prompt: string, input: NodeJS.ReadStream, output: NodeJS.WriteStream): Promise<string | null> {
  return new Promise((resolve) => {
    // Echo goes off before the prompt shows, so nothing typed after seeing it is echoed.
    input.setRawMode(true);
    output.write(prompt);
    let typed: string[] = [];
    const finish = (password: string | null) => {
      input.off('data', onData).off('end', onEnd);
      input.setRawMode(false);
      input.pause();
      output.write('\n');
      resolve(password);
    };
    const onEnd = () => finish(null);
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return finish(typed.join(''));
        if (char === '\u0003' || (char === '\u0004' && typed.length === 0)) return finish(null);
        if (char === '\u007f' || char === '\b') typed.pop();
        else if (char === '\u0015') typed = [];
        else if (char === '\u001b') return;
        else if (char >= ' ' && typed.length <= MAX_PASSWORD_CHARS) typed.push(char);
      }
    };
    input.setEncoding('utf8');
    input.on('data', onData).on('end', onEnd).resume();
  });
}

/** The first line of a piped stdin (without its CR LF), read no further than the bound. */
function firstLine(input: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const finish = (line: string) => {
      input.off('data', onData).off('end', onEnd).off('error', onError);
      // Nothing else is read from stdin: let it go, so it keeps no handle open.
      input.destroy();
      resolve(line.replace(/\r$/, ''));
    };
    const onData = (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end >= 0) return finish(text.slice(0, end));
      if (text.length > MAX_PASSWORD_CHARS + 1) finish(text);
    };
    const onEnd = () => finish(text);
    const onError = (error: Error) => reject(error);
    input.setEncoding('utf8');
    input.on('data', onData).on('end', onEnd).on('error', onError);
  });
}
