import { ApiError } from './api-client';
import { missingSourceSlug, sourcesHint } from './unknown-source';

describe('an unknown source slug', () => {
  it('is recognised by the not_found error about an Endpoint, not about a transform or an event', () => {
    expect(missingSourceSlug(new ApiError('Endpoint shop was not found.', 'not_found', 404, { resource: 'Endpoint', id: 'shop' }))).toBe('shop');
    expect(missingSourceSlug(new ApiError('Transform t was not found.', 'not_found', 404, { resource: 'Transform', id: 't' }))).toBeNull();
    expect(missingSourceSlug(new ApiError('no', 'forbidden', 403))).toBeNull();
    expect(missingSourceSlug(new Error('Endpoint shop was not found.'))).toBeNull();
  });

  it("names the project's sources, or says where to find them", () => {
    expect(sourcesHint(['shop-1a2b3c4d'])).toBe('its source is shop-1a2b3c4d');
    expect(sourcesHint(['a', 'b'])).toBe('its sources are a, b');
    expect(sourcesHint(Array.from({ length: 12 }, (_, i) => `s${i}`))).toBe("its sources are s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, and 2 more (the dashboard's Endpoints page)");
    expect(sourcesHint([])).toBe('it has none yet; create one in the dashboard or with POST /v1/endpoints');
    expect(sourcesHint(null)).toBe("its sources' slugs are on the dashboard's Endpoints page (or GET /v1/endpoints)");
  });
});
