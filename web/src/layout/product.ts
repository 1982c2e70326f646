/** The product's name, in the header and in every document title. */
export const PRODUCT_NAME = 'Client Organization Service';
