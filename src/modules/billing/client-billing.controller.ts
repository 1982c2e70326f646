import { Controller, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { z } from 'zod';
import {
  CheckoutUrlSchema,
  InvoiceListSchema,
  OrgBillingSchema,
  RecordPaymentMethodSchema,
  UpdateOrgBillingSchema,
  type RecordPaymentMethodInput,
  type UpdateOrgBillingInput,
} from '../../contracts/billing.js';
import { type OrgRole } from '../../contracts/roles.js';
import { CurrentPrincipal, OpenWhileSuspended, OrgRoles, RouteOrg } from '../../platform/auth/auth.decorators.js';
import { memberOrgId } from '../../platform/auth/org-scope.js';
import type { Principal } from '../../platform/auth/principal.js';
import { AppError } from '../../platform/errors/app-error.js';
import { Endpoint, ValidBody, ValidParams, ValidQuery } from '../../platform/http/endpoint.js';
import { requestScope, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { BillingService } from './billing.service.js';

/** Spec 5.1: billing settings are for these org roles only. */
export const BILLING_ORG_ROLES: OrgRole[] = ['owner', 'admin', 'billing'];
const BILLING_ROLES = { roles: BILLING_ORG_ROLES };

const OrgParams = z.object({ orgId: z.uuid() });
const InvoicePage = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(24),
  cursor: z.string().max(200).optional(),
});
const OrgQuery = z.object({ orgId: z.uuid().optional() });
const TAGS = ['billing'];

/**
 * The client's billing settings (spec 4.6, 5.1). Open while the org is suspended (spec 3.6):
 * paying is the way back.
 */
@Controller()
@OpenWhileSuspended()
export class ClientBillingController {
  constructor(private readonly billing: BillingService) {}

  @Get('orgs/:orgId/billing')
  @OrgRoles(BILLING_ROLES)
  @Endpoint({
    summary: 'Billing settings: billing email, payment method, dunning state, upcoming invoice (owner, admin, billing)',
    tags: TAGS,
    params: OrgParams,
    response: OrgBillingSchema,
    errors: [403, 404],
  })
  settings(@ValidParams() _p: z.infer<typeof OrgParams>, @RouteOrg() scope: OrgScope) {
    return this.billing.settings(scope);
  }

  @Patch('orgs/:orgId/billing')
  @OrgRoles(BILLING_ROLES)
  @Endpoint({ summary: 'Update the billing email (owner, admin, billing)', tags: TAGS, params: OrgParams, body: UpdateOrgBillingSchema, response: OrgBillingSchema, errors: [403, 404] })
  update(@CurrentPrincipal() principal: Principal, @ValidParams() _p: z.infer<typeof OrgParams>, @ValidBody() body: UpdateOrgBillingInput, @RouteOrg() scope: OrgScope) {
    return this.billing.updateBillingEmail(principal, scope, body.billingEmail);
  }

  @Post('orgs/:orgId/billing/payment-method')
  @HttpCode(200)
  @OrgRoles(BILLING_ROLES)
  @Endpoint({
    summary: "Record the payment method (the default provider's setup page)",
    tags: TAGS,
    params: OrgParams,
    body: RecordPaymentMethodSchema,
    response: OrgBillingSchema,
    errors: [403, 404],
  })
  paymentMethod(@CurrentPrincipal() principal: Principal, @ValidParams() _p: z.infer<typeof OrgParams>, @ValidBody() body: RecordPaymentMethodInput, @RouteOrg() scope: OrgScope) {
    return this.billing.recordPaymentMethod(principal, scope, body);
  }

  @Get('orgs/:orgId/invoices')
  @OrgRoles(BILLING_ROLES)
  @Endpoint({ summary: 'Invoices with their lines, newest month first (owner, admin, billing)', tags: TAGS, params: OrgParams, query: InvoicePage, response: InvoiceListSchema, errors: [403, 404] })
  invoices(@ValidParams() _p: z.infer<typeof OrgParams>, @ValidQuery() q: z.infer<typeof InvoicePage>, @RouteOrg() scope: OrgScope) {
    return this.billing.invoices(scope, q);
  }

  @Get('client/billing/checkout-url')
  @Endpoint({
    summary: "The provider's setup-mode URL for adding a payment method (owner, admin, billing of the caller's org)",
    tags: TAGS,
    query: OrgQuery,
    response: CheckoutUrlSchema,
    errors: [403, 404],
  })
  checkoutUrl(@CurrentPrincipal() principal: Principal, @ValidQuery() q: z.infer<typeof OrgQuery>) {
    const orgId = memberOrgId(principal, q.orgId);
    const role = principal.orgMemberships.find((m) => m.orgId === orgId)!.orgRole;
    if (!BILLING_ORG_ROLES.includes(role)) throw AppError.forbidden('Your organization role does not allow this');
    return this.billing.checkoutUrl(requestScope(orgId, 'membership'));
  }
}
