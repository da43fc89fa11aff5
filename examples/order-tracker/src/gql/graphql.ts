/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
/** What an order address is used for (upstream `addressType`). */
export type AddressType =
  /** Where invoices are sent. */
  | 'BILLING'
  /** Where the vehicle is delivered. */
  | 'DELIVERY'
  /** Where the vehicle is registered. */
  | 'REGISTRATION'
  /** An upstream address type this API does not know yet. */
  | 'UNKNOWN';

/** The fee a payment is for (upstream `feeType`). */
export type FeeType =
  /** The fee paid to place the order. */
  | 'ORDER_FEE';

/** A part of an order that comes from its own upstream call and exists only from a given stage of the order. */
export type OrderPart =
  /** `Order.estimate`: the order's price breakdown, from ORDER_CONFIRMED. */
  | 'ESTIMATE'
  /** `Order.pickup`: the nearest pickup centre, from IN_TRANSIT. */
  | 'PICKUP'
  /** `Order.vehicle`: production details of the vehicle, from IN_PRODUCTION. */
  | 'VEHICLE';

/** The stage of an order. Stages follow each other in the order listed, from RESERVED to DELIVERED; CANCELLED is outside that sequence. Some order fields are only available from a given stage (`Order.availability`). */
export type OrderStatus =
  /** Stage 4: the build configuration is locked and can no longer be edited. */
  | 'BUILD_LOCKED'
  /** The order was cancelled; outside the stage sequence, so stage-gated fields are not available. */
  | 'CANCELLED'
  /** Stage 8 (final): the vehicle has been handed over to the customer. */
  | 'DELIVERED'
  /** Stage 5: the vehicle is being built; `vehicle` becomes available. */
  | 'IN_PRODUCTION'
  /** Stage 6: the vehicle is on its way; `pickup` becomes available. */
  | 'IN_TRANSIT'
  /** Stage 3: the order is paid and confirmed; `estimate` becomes available. */
  | 'ORDER_CONFIRMED'
  /** Stage 2: the customer has placed the order and its order fee payment is pending. */
  | 'ORDER_PENDING_PAYMENT'
  /** Stage 7: the vehicle has arrived at the pickup centre and is ready to be collected. */
  | 'READY_FOR_PICKUP'
  /** Stage 1: a vehicle is reserved but the order is not placed yet; most per-order data is not available. */
  | 'RESERVED'
  /** An upstream status this API does not know yet; see `Order.rawStatus` for the value as sent. */
  | 'UNKNOWN';

/** State of a payment (upstream `status`). */
export type PaymentStatus =
  /** The payment was declined or failed. */
  | 'FAILED'
  /** The payment has been started but not settled yet. */
  | 'PENDING'
  /** The payment was refunded to the customer. */
  | 'REFUNDED'
  /** The payment went through. */
  | 'SUCCEEDED'
  /** An upstream payment status this API does not know yet. */
  | 'UNKNOWN';

/** Progress of a trade-in (upstream `status`). */
export type TradeInStatus =
  /** The trade-in is complete. */
  | 'COMPLETED'
  /** The offer was declined or the trade-in was rejected. */
  | 'DECLINED'
  /** An inspection of the trade-in vehicle has been scheduled. */
  | 'INSPECTION_SCHEDULED'
  /** The trade-in has been created but the customer has not submitted their vehicle yet. */
  | 'NOT_STARTED'
  /** The customer has accepted the offer. */
  | 'OFFER_ACCEPTED'
  /** The vehicle has been submitted and the partner is preparing an offer. */
  | 'OFFER_PENDING'
  /** The partner has made an offer the customer can accept. */
  | 'OFFER_RECEIVED'
  /** An upstream trade-in status this API does not know yet. */
  | 'UNKNOWN';

export type TrackerOrderQueryVariables = Exact<{ [key: string]: never; }>;


export type TrackerOrderQuery = { me: { id: string, firstName: string | null, orders: Array<{ id: string, reservationId: string, status: OrderStatus, rawStatus: string, updatedAt: string | null, delivered: boolean, availability: Array<{ part: OrderPart, from: OrderStatus, available: boolean }>, product: { model: string | null, trim: string | null } | null, configuration: { exterior: string | null, interior: string | null, wheel: string | null } | null } & ({ vehicle: { vin: string, model: string, modelYear: number | null, trim: string | null, exterior: string | null, interior: string | null, wheel: string | null } | null } | { vehicle?: never }) & ({ pickup: { name: string, available: boolean | null, earliestPickupDate: string | null, address: { line1: string | null, city: string | null, region: string | null, postalCode: string | null } | null } | null } | { pickup?: never }) & ({ estimate: { isEstimate: boolean | null, calculatedAt: string | null, vehiclePrice: { amount: string, currencyCode: string } | null, optionsTotal: { amount: string, currencyCode: string } | null, fees: Array<{ code: string, description: string | null, amount: { amount: string, currencyCode: string } }>, feesTotal: { amount: string, currencyCode: string } | null, taxes: Array<{ code: string, description: string | null, rate: number | null, amount: { amount: string, currencyCode: string } }>, taxTotal: { amount: string, currencyCode: string } | null, credits: Array<{ code: string, description: string | null, amount: { amount: string, currencyCode: string } }>, total: { amount: string, currencyCode: string }, paidTotal: { amount: string, currencyCode: string } | null, amountDue: { amount: string, currencyCode: string } } | null } | { estimate?: never }) & ({ addresses: Array<{ type: AddressType | null, primary: boolean | null, line1: string | null, line2: string | null, city: string | null, region: string | null, postalCode: string | null, country: string | null, validated: boolean | null }> | null } | { addresses?: never }) & ({ payments: Array<{ id: string, feeType: FeeType, status: PaymentStatus, method: string | null, paidAt: string | null, createdAt: string | null, amount: { amount: string, currencyCode: string } }> | null } | { payments?: never }) & ({ tradeIn: { status: TradeInStatus, vehicle: { year: number | null, make: string | null, model: string | null } | null, offer: { expiresAt: string | null, amount: { amount: string, currencyCode: string } } | null, netCredit: { amount: string, currencyCode: string } | null } | null } | { tradeIn?: never }) & ({ history: Array<{ observedAt: string, cursor: string, changes: Array<{ field: string, from: string | null, to: string | null }> }> } | { history?: never })> | null } | null };

export type TrackerMoneyFragment = { amount: string, currencyCode: string };

export type TrackerPriceLineFragment = { code: string, description: string | null, amount: { amount: string, currencyCode: string } };

export const TrackerMoneyFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TrackerMoney"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Money"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"amount"}},{"kind":"Field","name":{"kind":"Name","value":"currencyCode"}}]}}]} as unknown as DocumentNode<TrackerMoneyFragment, unknown>;
export const TrackerPriceLineFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TrackerPriceLine"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"PriceLine"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"description"}},{"kind":"Field","name":{"kind":"Name","value":"amount"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TrackerMoney"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TrackerMoney"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Money"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"amount"}},{"kind":"Field","name":{"kind":"Name","value":"currencyCode"}}]}}]} as unknown as DocumentNode<TrackerPriceLineFragment, unknown>;
export const TrackerOrderDocument = {"__meta__":{"hash":"sha256:5c173da5846ddc1db0f3b4819a17449b6b2b90e151c31cd0328278443ebce933"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"TrackerOrder"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"me"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"firstName"}},{"kind":"Field","name":{"kind":"Name","value":"orders"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"reservationId"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"rawStatus"}},{"kind":"Field","name":{"kind":"Name","value":"availability"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"part"}},{"kind":"Field","name":{"kind":"Name","value":"from"}},{"kind":"Field","name":{"kind":"Name","value":"available"}}]}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"delivered"}},{"kind":"Field","name":{"kind":"Name","value":"product"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"model"}},{"kind":"Field","name":{"kind":"Name","value":"trim"}}]}},{"kind":"Field","name":{"kind":"Name","value":"configuration"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"exterior"}},{"kind":"Field","name":{"kind":"Name","value":"interior"}},{"kind":"Field","name":{"kind":"Name","value":"wheel"}}]}},{"kind":"InlineFragment","directives":[{"kind":"Directive","name":{"kind":"Name","value":"defer"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"label"},"value":{"kind":"StringValue","value":"vehicle","block":false}}]}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"vehicle"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"vin"}},{"kind":"Field","name":{"kind":"Name","value":"model"}},{"kind":"Field","name":{"kind":"Name","value":"modelYear"}},{"kind":"Field","name":{"kind":"Name","value":"trim"}},{"kind":"Field","name":{"kind":"Name","value":"exterior"}},{"kind":"Field","name":{"kind":"Name","value":"interior"}},{"kind":"Field","name":{"kind":"Name","value":"wheel"}}]}}]}},{"kind":"InlineFragment","directives":[{"kind":"Directive","name":{"kind":"Name","value":"defer"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"label"},"value":{"kind":"StringValue","value":"pickup","block":false}}]}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"pickup"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"address"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"line1"}},{"kind":"Field","name":{"kind":"Name","value":"city"}},{"kind":"Field","name":{"kind":"Name","value":"region"}},{"kind":"Field","name":{"kind":"Name","value":"postalCode"}}]}},{"kind":"Field","name":{"kind":"Name","value":"available"}},{"kind":"Field","name":{"kind":"Name","value":"earliestPickupDate"}}]}}]}},{"kind":"InlineFragment","directives":[{"kind":"Directive","name":{"kind":"Name","value":"defer"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"label"},"value":{"kind":"StringValue","value":"estimate","block":false}}]}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"estimate"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"vehiclePrice"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TrackerMoney"}}]}},{"kind":"Field","name":{"kind":"Name","value":"optionsTotal"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TrackerMoney"}}]}},{"kind":"Field","name":{"kind":"Name","value":"fees"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TrackerPriceLine"}}]}},{"kind":"Field","name":{"kind":"Name","value":"feesTotal"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TrackerMoney"}}]}},{"kind":"Field","name":{"kind":"Name","value":"taxes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"description"}},{"kind":"Field","name":{"kind":"Name","value":"rate"}},{"kind":"Field","name":{"kind":"Name","value":"amount"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TrackerMoney"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"taxTotal"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TrackerMoney"}}]}},{"kind":"Field","name":{"kind":"Name","value":"credits"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TrackerPriceLine"}}]}},{"kind":"Field","name":{"kind":"Name","value":"total"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TrackerMoney"}}]}},{"kind":"Field","name":{"kind":"Name","value":"paidTotal"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TrackerMoney"}}]}},{"kind":"Field","name":{"kind":"Name","value":"amountDue"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TrackerMoney"}}]}},{"kind":"Field","name":{"kind":"Name","value":"isEstimate"}},{"kind":"Field","name":{"kind":"Name","value":"calculatedAt"}}]}}]}},{"kind":"InlineFragment","directives":[{"kind":"Directive","name":{"kind":"Name","value":"defer"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"label"},"value":{"kind":"StringValue","value":"addresses","block":false}}]}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"addresses"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"primary"}},{"kind":"Field","name":{"kind":"Name","value":"line1"}},{"kind":"Field","name":{"kind":"Name","value":"line2"}},{"kind":"Field","name":{"kind":"Name","value":"city"}},{"kind":"Field","name":{"kind":"Name","value":"region"}},{"kind":"Field","name":{"kind":"Name","value":"postalCode"}},{"kind":"Field","name":{"kind":"Name","value":"country"}},{"kind":"Field","name":{"kind":"Name","value":"validated"}}]}}]}},{"kind":"InlineFragment","directives":[{"kind":"Directive","name":{"kind":"Name","value":"defer"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"label"},"value":{"kind":"StringValue","value":"payments","block":false}}]}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"payments"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"feeType"}},{"kind":"Field","name":{"kind":"Name","value":"amount"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TrackerMoney"}}]}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"method"}},{"kind":"Field","name":{"kind":"Name","value":"paidAt"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}}]}}]}},{"kind":"InlineFragment","directives":[{"kind":"Directive","name":{"kind":"Name","value":"defer"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"label"},"value":{"kind":"StringValue","value":"tradeIn","block":false}}]}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tradeIn"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"vehicle"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"year"}},{"kind":"Field","name":{"kind":"Name","value":"make"}},{"kind":"Field","name":{"kind":"Name","value":"model"}}]}},{"kind":"Field","name":{"kind":"Name","value":"offer"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"amount"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TrackerMoney"}}]}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}}]}},{"kind":"Field","name":{"kind":"Name","value":"netCredit"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TrackerMoney"}}]}}]}}]}},{"kind":"InlineFragment","directives":[{"kind":"Directive","name":{"kind":"Name","value":"defer"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"label"},"value":{"kind":"StringValue","value":"history","block":false}}]}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"history"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"20"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"observedAt"}},{"kind":"Field","name":{"kind":"Name","value":"changes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"field"}},{"kind":"Field","name":{"kind":"Name","value":"from"}},{"kind":"Field","name":{"kind":"Name","value":"to"}}]}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}}]}}]}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TrackerMoney"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Money"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"amount"}},{"kind":"Field","name":{"kind":"Name","value":"currencyCode"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TrackerPriceLine"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"PriceLine"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"description"}},{"kind":"Field","name":{"kind":"Name","value":"amount"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TrackerMoney"}}]}}]}}]} as unknown as DocumentNode<TrackerOrderQuery, TrackerOrderQueryVariables>;