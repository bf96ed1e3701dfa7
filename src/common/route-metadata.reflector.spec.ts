import { SetMetadata } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { RouteMetadataReflector } from './route-metadata.reflector';

const KEY = 'test:policy';

@SetMetadata(KEY, 'from the class')
class Base {
  @SetMetadata(KEY, 'from the handler')
  decorated(): void {}

  plain(): void {}
}

@SetMetadata(KEY, 'from the subclass')
class Sub extends Base {}

class Bare {
  plain(): void {}
}

describe('RouteMetadataReflector', () => {
  const reflector = new RouteMetadataReflector();

  it("prefers the handler's metadata to the controller's", () => {
    expect(reflector.getAllAndOverride(KEY, [Base.prototype.decorated, Base])).toBe('from the handler');
  });

  it("falls back to the controller's metadata", () => {
    expect(reflector.getAllAndOverride(KEY, [Base.prototype.plain, Base])).toBe('from the class');
  });

  it('answers undefined when neither has any', () => {
    expect(reflector.getAllAndOverride(KEY, [Bare.prototype.plain, Bare])).toBeUndefined();
  });

  it('answers each controller of an inherited handler with its own metadata, asked in either order', () => {
    expect(reflector.getAllAndOverride(KEY, [Base.prototype.plain, Sub])).toBe('from the subclass');
    expect(reflector.getAllAndOverride(KEY, [Base.prototype.plain, Base])).toBe('from the class');
    expect(reflector.getAllAndOverride(KEY, [Base.prototype.plain, Sub])).toBe('from the subclass');
  });

  it('answers repeated questions the same, for each key', () => {
    for (let i = 0; i < 3; i++) {
      expect(reflector.getAllAndOverride(KEY, [Base.prototype.decorated, Base])).toBe('from the handler');
      expect(reflector.getAllAndOverride('test:other', [Base.prototype.decorated, Base])).toBeUndefined();
    }
  });
});
