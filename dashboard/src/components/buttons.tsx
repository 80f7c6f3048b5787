import { useEffect, useState, type ReactNode } from 'react';

/** Copies `value` to the clipboard; says "Copied" for a moment. */
export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(t);
  }, [copied]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      // Clipboard API needs a secure context; fall back to a selection copy.
      const area = document.createElement('textarea');
      area.value = value;
      document.body.append(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    setCopied(true);
  };
  return (
    <button type="button" className="small" onClick={copy} aria-label={`${label}: copy to clipboard`}>
      {copied ? 'Copied' : label}
    </button>
  );
}

/** A destructive or costly action: the first click asks, the second (within 4 s) does it. */
export function ConfirmButton(props: { onConfirm: () => void; children: ReactNode; confirmText?: string; danger?: boolean; disabled?: boolean }) {
  const [asking, setAsking] = useState(false);
  useEffect(() => {
    if (!asking) return;
    const t = setTimeout(() => setAsking(false), 4000);
    return () => clearTimeout(t);
  }, [asking]);
  return (
    <button
      type="button"
      className={props.danger ? 'danger' : undefined}
      disabled={props.disabled}
      onClick={() => {
        if (!asking) return setAsking(true);
        setAsking(false);
        props.onConfirm();
      }}
    >
      {asking ? (props.confirmText ?? 'Click again to confirm') : props.children}
    </button>
  );
}
