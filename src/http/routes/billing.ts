import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { billingOverview, listTransactions } from '../../services/billing/account.js';
import { parseUsd } from '../../services/billing/money.js';
import { BillingOverviewRecord, Usd } from '../../services/billing/records.js';
import { createTopup, readTopup } from '../../services/billing/topups.js';
import type { Guards } from '../plugins/guards.js';
import { errors, PageOf, Timestamp, Uuid } from '../schemas.js';
import type { Http } from '../types.js';
import { routesOf } from '../route-security.js';

// docs/billing.md: tenant billing, reached with the secret key of any app of
// the tenant, and still open while the tenant is paused (the guard `billing` does not refuse paused apps).

const TopupBody = Type.Object({
  // Checked by the service (one place for the money rules: > 0, cents, the ceiling), with the same detail everywhere.
  amount_usd: Type.Unknown({ description: 'JSON number of USD, > 0, at most 2 decimals, at most 100000' }),
  method: Type.Literal('crypto'),
  chain: Type.Optional(Type.String({ maxLength: 32, description: 'one of BILLING_CHAINS; default the first of them' })),
});

const Topup = Type.Object({
  payment_id: Uuid,
  status: Type.Union([Type.Literal('pending'), Type.Literal('confirmed'), Type.Literal('expired')]),
  amount_usd: Usd,
  method: Type.Literal('crypto'),
  chain: Type.String(),
  pay_to: Type.Object({ address: Type.String(), amount: Type.String() }),
  challenge_id: Type.String({ description: "the provider's challenge id" }),
  expires_at: Timestamp,
  created_at: Timestamp,
}, { title: 'Topup' });

const Transaction = Type.Object({
  transaction_id: Uuid,
  type: Type.Union([Type.Literal('topup'), Type.Literal('usage'), Type.Literal('adjustment')]),
  amount_usd: Usd,
  balance_after_usd: Usd,
  description: Type.String(),
  payment_id: Type.Union([Uuid, Type.Null()]),
  created_at: Timestamp,
});

export function billingRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'billing');

  app.get(
    '/v1/billing',
    route.billing({ operationId: 'getBilling', summary: 'Balance, pause state, this month’s usage and payment methods', response: { 200: BillingOverviewRecord, ...errors(401, 403) } }),
    async (request) => billingOverview(deps, request.application!.tenantId),
  );

  app.post(
    '/v1/billing/topups',
    route.billing({ operationId: 'createTopup', summary: 'Start a crypto top-up: a donation challenge at the provider; pay to pay_to', body: TopupBody, response: { 201: Topup, ...errors(400, 401, 403, 502) } }),
    async (request, reply) => {
      const amountCents = parseUsd(request.body.amount_usd, 'amount_usd', 'positive');
      const topup = await createTopup(deps, request.application!, { amountCents, chain: request.body.chain });
      return reply.code(201).send(topup);
    },
  );

  app.get(
    '/v1/billing/topups/:payment_id',
    route.billing({
      operationId: 'getTopup',
      summary: 'A top-up’s status; asks the provider and credits a confirmed payment once',
      params: Type.Object({ payment_id: Uuid }),
      response: { 200: Topup, ...errors(400, 401, 403, 404, 502) },
    }),
    async (request) => readTopup(deps, request.application!.tenantId, request.params.payment_id),
  );

  app.get(
    '/v1/billing/transactions',
    route.billing({
      operationId: 'listTransactions',
      summary: 'Ledger rows, newest first, by keyset pages (next_cursor)',
      querystring: Type.Object({
        limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
        cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'the next_cursor of the page before' })),
      }),
      response: { 200: PageOf('transactions', Transaction), ...errors(400, 401, 403) },
    }),
    async (request) => listTransactions(deps, request.application!.tenantId, request.query.limit, request.query.cursor),
  );
}
