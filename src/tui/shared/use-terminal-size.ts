import { useStdout } from 'ink';
import { useEffect, useState } from 'react';

export interface TerminalSize {
  columns: number;
  rows: number;
}

/** The output's size now; 80×24 where it is no terminal. */
const sizeOf = (stdout: NodeJS.WriteStream): TerminalSize => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });

/** The terminal's size, redrawn on resize; 80×24 where the output is no terminal. */
export function useTerminalSize(fixed?: TerminalSize): TerminalSize {
  const { stdout } = useStdout();
  const [size, setSize] = useState(() => sizeOf(stdout));
  useEffect(() => {
    if (fixed) return;
    const onResize = () => setSize(sizeOf(stdout));
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout, fixed]);
  return fixed ?? size;
}
