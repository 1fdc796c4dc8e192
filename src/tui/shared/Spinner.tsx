import { Text } from 'ink';
import { useEffect, useState } from 'react';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Something is under way: a turning braille dot and what is being waited for. */
export function Spinner({ label }: { label?: string }) {
  const [frame, setFrame] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setFrame((current) => (current + 1) % FRAMES.length), 100);
    return () => clearInterval(timer);
  }, []);
  return (
    <Text wrap="truncate-end">
      <Text color="cyan">{FRAMES[frame]}</Text>
      {label ? <Text dimColor> {label}</Text> : null}
    </Text>
  );
}
