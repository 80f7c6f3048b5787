import { CopyButton } from './buttons';

/**
 * A secret the API returns only once (a signing secret, an API key, an invite token).
 * The page keeps it in component state only; "Done" forgets it.
 */
export function SecretOnce({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  return (
    <div className="secret-once" role="status">
      <div>
        <strong>{label}</strong> — shown once: copy it now, it cannot be read again.
      </div>
      <div className="row">
        <code className="secret-value" data-testid="secret-value">
          {value}
        </code>
        <CopyButton value={value} />
        <button type="button" className="small" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
