// Estimate: an order's price breakdown, its amounts and lines in the estimate's currency.
import type { EstimateResolvers, PriceLine, TaxLine } from '../__generated__/resolvers-types.js';
import type { Estimate as EstimateModel, PriceLine as PriceLineModel } from '../../upstream/models.js';
import { readable } from '../../upstream/shapes.js';
import { money, requiredMoney } from './mapping.js';

/** Lines in the estimate's currency; a line without a code or a readable amount is left out. */
function priceLines(lines: PriceLineModel[] | null | undefined, currencyCode: string): PriceLine[] {
  return (readable(lines) ?? []).flatMap((line) => {
    const amount = money(line?.amount, currencyCode);
    return line?.code && amount ? [{ code: line.code, description: line.description ?? null, amount }] : [];
  });
}

function taxLines({ taxes, currencyCode }: EstimateModel): TaxLine[] {
  return (readable(taxes) ?? []).flatMap((tax) => {
    const amount = money(tax?.amount, currencyCode);
    if (!tax?.code || !amount) return [];
    return [
      {
        code: tax.code,
        description: tax.description ?? null,
        rate: readable(tax.rate) ?? null,
        taxableAmount: money(tax.taxableAmount, currencyCode),
        amount,
      },
    ];
  });
}

export const Estimate: EstimateResolvers = {
  vehiclePrice: ({ vehiclePrice, currencyCode }) => money(vehiclePrice, currencyCode),
  optionsTotal: ({ optionsTotal, currencyCode }) => money(optionsTotal, currencyCode),
  fees: ({ fees, currencyCode }) => priceLines(fees, currencyCode),
  feesTotal: ({ feesTotal, currencyCode }) => money(feesTotal, currencyCode),
  taxes: (estimate) => taxLines(estimate),
  taxTotal: ({ taxTotal, currencyCode }) => money(taxTotal, currencyCode),
  credits: ({ credits, currencyCode }) => priceLines(credits, currencyCode),
  tradeInCredit: ({ tradeInCredit, currencyCode }) => money(tradeInCredit, currencyCode),
  total: ({ total, currencyCode }) => requiredMoney(total, currencyCode),
  paidTotal: ({ paidTotal, currencyCode }) => money(paidTotal, currencyCode),
  amountDue: ({ amountDue, currencyCode }) => requiredMoney(amountDue, currencyCode),
};
