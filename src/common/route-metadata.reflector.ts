import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

/** A handler or a controller, as Nest's guards pass them. */
type Targets = Parameters<Reflector['getAllAndOverride']>[1];
type Target = Targets[number];

/**
 * Nest's Reflector, remembering what `getAllAndOverride` read for a route: the metadata of
 * handlers and controllers is fixed once the application is built, and the guards ask the
 * same questions on every request (the rate-limit guard alone a dozen), each a walk through
 * reflect-metadata's maps.
 */
@Injectable()
export class RouteMetadataReflector extends Reflector {
  /** handler -> controller -> metadata key -> value */
  private readonly read = new WeakMap<Target, WeakMap<Target, Map<unknown, unknown>>>();

  override getAllAndOverride<TResult = unknown, TKey = unknown>(key: TKey, targets: Targets): TResult {
    if (targets.length !== 2) return super.getAllAndOverride(key, targets);
    const [handler, controller] = targets;
    let byController = this.read.get(handler);
    if (byController === undefined) this.read.set(handler, (byController = new WeakMap()));
    let values = byController.get(controller);
    if (values === undefined) byController.set(controller, (values = new Map()));
    if (!values.has(key)) values.set(key, super.getAllAndOverride(key, targets));
    return values.get(key) as TResult;
  }
}
