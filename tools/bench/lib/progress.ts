// One progress line on stderr: rewritten in place on a terminal, one line per step otherwise.
const interactive = process.stderr.isTTY === true;
let shown = false;

export function progress(message: string): void {
  if (interactive) {
    process.stderr.write(`\r\x1b[K${message}`);
    shown = true;
  } else {
    process.stderr.write(`${message}\n`);
  }
}

export function endProgress(): void {
  if (interactive && shown) process.stderr.write('\r\x1b[K');
  shown = false;
}
