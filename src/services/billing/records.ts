import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from '../wire-formats.js';

// docs/billing.md: the records billing answers with, declared once: the routes' schemas (http/routes/billing.ts)
// and the services' types.

export const Usd = Type.Number({ description: 'USD, at most 2 decimals' });

export const BillingOverviewRecord = Type.Object({
  tenant_id: Type.String(),
  balance_usd: Usd,
  paused: Type.Boolean(),
  usage: Type.Object({
    period_start: Timestamp,
    period_end: Timestamp,
    monthly_active_users: Type.Integer(),
    table_storage_bytes: Type.Integer(),
    object_storage_bytes: Type.Integer(),
    estimated_charges_usd: Usd,
  }),
  payment_methods: Type.Array(Type.Object({ method: Type.Literal('crypto'), chains: Type.Array(Type.String()) })),
});

export type BillingOverview = Static<typeof BillingOverviewRecord>;
