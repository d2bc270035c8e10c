// A crypto top-up (POST /v1/billing/topups): the amount and chain, then the address and amount to pay,
// each with a copy button, and its status read again on demand (GET /v1/billing/topups/{id}). Owners, admins.
import type { Body, Ok } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { CopyField } from '../../ui/copy.js';
import { Choice, Field, Form } from '../../ui/fields.js';
import { useAction } from '../../ui/load.js';
import { Notice, Problem } from '../../ui/problem.js';

type Topup = Ok<'getTopup'>;

export function TopUp({ appId, chains, onConfirmed }: { appId: string; chains: string[]; onConfirmed: () => void }) {
  const [amount, setAmount] = useState('');
  const [chain, setChain] = useState(chains[0] ?? '');
  const [topup, setTopup] = useState<Topup | undefined>(undefined);
  const start = useAction();
  const check = useAction();
  const submit = () => start.run(async () => setTopup(await api<Ok<'createTopup'>>('POST', '/v1/billing/topups', { appId, body: { amount_usd: Number(amount), method: 'crypto', ...(chain ? { chain } : {}) } satisfies Body<'createTopup'> })));
  const refresh = () =>
    check.run(async () => {
      const now = await api<Topup>('GET', `/v1/billing/topups/${topup!.payment_id}`, { appId });
      setTopup(now);
      if (now.status === 'confirmed') onConfirmed();
    });
  return (
    <section aria-labelledby="top-up">
      <h2 id="top-up">Top up</h2>
      <Form onSubmit={submit} label="Top up">
        <Field label="Amount (USD)" inputMode="numeric" required value={amount} onValue={setAmount} hint="More than 0, at most 2 decimals, at most 100,000." />
        {chains.length > 1 && <Choice label="Chain" value={chain} onValue={setChain} options={chains.map((c) => [c, c])} />}
        <button type="submit" disabled={start.busy}>
          Start the top-up
        </button>
      </Form>
      <Problem error={start.error} />
      {topup && (
        <>
          <p>{`Send ${topup.pay_to.amount} on ${topup.chain} to the address below before ${topup.expires_at.slice(0, 16).replace('T', ' ')} UTC: ${topup.amount_usd} USD is credited once the payment is confirmed.`}</p>
          <CopyField label="Pay to address" value={topup.pay_to.address} />
          <CopyField label="Amount to send" value={topup.pay_to.amount} />
          <Notice text={`Status: ${topup.status}.`} />
          {topup.status === 'pending' && (
            <button type="button" class="secondary" onClick={refresh} disabled={check.busy}>
              Check the payment
            </button>
          )}
          <Problem error={check.error} />
        </>
      )}
    </section>
  );
}
