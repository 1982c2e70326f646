import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { z } from 'zod';
import {
  CostRangeQuerySchema,
  ExpertLeverageSchema,
  ExpertWorkloadSchema,
  InvoiceRunResultSchema,
  InvoiceRunSchema,
  OpsBillingOrgListSchema,
  PAYMENT_STATES,
  PaymentRecordedSchema,
  OrgCostsSchema,
  PlatformCostsSchema,
  RecordPaymentSchema,
  type CostRangeQuery,
  type RecordPaymentInput,
} from '../../contracts/billing.js';
import { CurrentPrincipal, PlatformRoles } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { Clock } from '../../platform/clock/clock.js';
import { Endpoint, ValidBody, ValidParams, ValidQuery } from '../../platform/http/endpoint.js';
import { PageQuerySchema } from '../../platform/http/pagination.js';
import { requestScope } from '../../platform/tenancy/org-scope.js';
import { AnalyticsService } from './analytics.service.js';
import { BillingService } from './billing.service.js';
import { CostsService } from './costs.service.js';
import { DunningService } from './dunning.service.js';
import { dayOf, periodOf, previousPeriod } from './proration.js';
import { ReconciliationService } from './reconciliation.service.js';

const OrgParams = z.object({ orgId: z.uuid() });
const InvoiceParams = z.object({ invoiceId: z.uuid() });
const OpsBillingOrgsQuery = PageQuerySchema.extend({ payment: z.enum(PAYMENT_STATES).optional(), orgId: z.uuid().optional() });
const TAGS = ['ops billing'];

/**
 * The ops billing surfaces (spec 5.1, 8.1): payment states for superadmins and account managers;
 * the cost panels, invoice runs and manual payments for superadmins only.
 */
@Controller('ops/billing')
@PlatformRoles('superadmin')
export class OpsBillingController {
  constructor(
    private readonly billing: BillingService,
    private readonly costs: CostsService,
    private readonly dunning: DunningService,
    private readonly reconciliation: ReconciliationService,
    private readonly clock: Clock,
  ) {}

  @Get('orgs')
  @PlatformRoles('superadmin', 'account_manager')
  @Endpoint({
    summary: 'Payment state of the activated orgs, oldest first (dunning, open invoices, monthly fees); ?payment= keeps one payment state, ?orgId= one org',
    tags: TAGS,
    query: OpsBillingOrgsQuery,
    response: OpsBillingOrgListSchema,
    errors: [400, 403],
  })
  async orgs(@ValidQuery() q: z.infer<typeof OpsBillingOrgsQuery>) {
    return this.costs.paymentStatesPage(q);
  }

  @Get('orgs/:orgId')
  @Endpoint({
    summary: 'One org: hourly and daily message usage (never billed), LLM cost per Specialist, the autonomous handling rate (total and per Specialist), invoices',
    tags: TAGS,
    params: OrgParams,
    query: CostRangeQuerySchema,
    response: OrgCostsSchema,
    errors: [403, 404],
  })
  org(@ValidParams() p: z.infer<typeof OrgParams>, @ValidQuery() q: CostRangeQuery) {
    return this.costs.org(requestScope(p.orgId, 'org_wide_role'), q);
  }

  @Get('costs')
  @Endpoint({
    summary: 'Platform LLM cost from the ledger: daily trend, top orgs, by Specialist, by purpose; the last reconciliation',
    tags: TAGS,
    query: CostRangeQuerySchema,
    response: PlatformCostsSchema,
    errors: [403],
  })
  async platformCosts(@ValidQuery() q: CostRangeQuery) {
    const [panels, reconciliation] = await Promise.all([this.costs.platform(q), this.reconciliation.latest()]);
    return { ...panels, reconciliation };
  }

  @Post('invoices/run')
  @HttpCode(200)
  @Endpoint({ summary: 'Run the invoice job for a closed month now (default: the last one); idempotent', tags: TAGS, body: InvoiceRunSchema, response: InvoiceRunResultSchema, errors: [400, 403] })
  run(@ValidBody() body: z.infer<typeof InvoiceRunSchema>) {
    return this.billing.generateInvoices(body.period ?? previousPeriod(periodOf(dayOf(this.clock.now()))));
  }

  @Post('invoices/:invoiceId/payments')
  @HttpCode(200)
  @Endpoint({
    summary: 'Record a manual payment of an invoice as paid or failed (the default provider)',
    tags: TAGS,
    params: InvoiceParams,
    body: RecordPaymentSchema,
    response: PaymentRecordedSchema,
    errors: [403, 404],
  })
  recordPayment(@CurrentPrincipal() principal: Principal, @ValidParams() p: z.infer<typeof InvoiceParams>, @ValidBody() body: RecordPaymentInput) {
    return this.dunning.recordPayment(principal, p.invoiceId, body);
  }
}

/** Expert analytics (spec 8.1, /ops/analytics): superadmins only. */
@Controller('ops/analytics')
@PlatformRoles('superadmin')
export class OpsAnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Get('expert-workload')
  @Endpoint({
    summary: 'Attention-list items and handle time per Specialist; the autonomous handling rate platform wide, per org and per Specialist',
    tags: TAGS,
    query: CostRangeQuerySchema,
    response: ExpertWorkloadSchema,
    errors: [403],
  })
  workload(@ValidQuery() q: CostRangeQuery) {
    return this.analytics.workload(q);
  }

  @Get('expert-leverage')
  @Endpoint({ summary: 'Clients and Specialist instances per Expert', tags: TAGS, response: ExpertLeverageSchema, errors: [403] })
  leverage() {
    return this.analytics.leverage();
  }
}
