import { describe, expect, it } from 'vitest';
import { defineTool } from '../core/define-tool.js';
import { ToolRegistry } from './tool-registry.js';

const tool = (name: string, description: string) => defineTool({ name, description, handler: () => name });

const names = (registry: ToolRegistry, query: string) => registry.search(query).map((hit) => hit.name);

describe('registry.search keeps its index in step with the tool set', () => {
  it('finds a tool registered after the first search', () => {
    const registry = new ToolRegistry();
    registry.register(tool('read_file', 'Read the contents of a file.'));
    expect(names(registry, 'weather')).toEqual([]);
    registry.register(tool('get_weather', 'Current weather for a city.'));
    expect(names(registry, 'weather')).toEqual(['get_weather']);
  });

  it('finds the new description of a tool replaced with allowOverride', () => {
    const registry = new ToolRegistry();
    registry.register(tool('lookup', 'Look up a word in the dictionary.'));
    expect(names(registry, 'dictionary')).toEqual(['lookup']);
    registry.register(tool('lookup', 'Look up a stock price.'), { allowOverride: true });
    expect(names(registry, 'dictionary')).toEqual([]);
    expect(names(registry, 'stock')).toEqual(['lookup']);
  });

  it('no longer finds a tool once it is unregistered, nor any after clear', () => {
    const registry = new ToolRegistry();
    registry.registerAll([tool('read_file', 'Read a file.'), tool('write_file', 'Write a file.')]);
    expect(names(registry, 'file').sort()).toEqual(['read_file', 'write_file']);
    registry.unregister('read_file');
    expect(names(registry, 'file')).toEqual(['write_file']);
    registry.clear();
    expect(names(registry, 'file')).toEqual([]);
  });

  it('finds a factory that has not run by its name alone, and one that has run by its description', () => {
    const factory = () => tool('get_weather', 'Forecast for a city.');
    const waiting = new ToolRegistry();
    waiting.registerFactory('get_weather', factory);
    expect(names(waiting, 'weather')).toEqual(['get_weather']);
    expect(names(waiting, 'forecast')).toEqual([]);
    const ran = new ToolRegistry();
    ran.registerFactory('get_weather', factory);
    ran.get('get_weather');
    expect(names(ran, 'forecast')).toEqual(['get_weather']);
  });

  it('searches a subset view over its own tools only', () => {
    const registry = new ToolRegistry();
    registry.registerAll([tool('read_file', 'Read a file.'), tool('write_file', 'Write a file.')]);
    expect(names(registry, 'file')).toHaveLength(2);
    const view = registry.subset(['write_file']);
    expect(names(view, 'file')).toEqual(['write_file']);
  });

  it('finds read_tool_output, added when a tool gets an output budget', () => {
    const registry = new ToolRegistry();
    expect(names(registry, 'truncated')).toEqual([]);
    registry.register(defineTool({ name: 'dump', description: 'Dump logs.', maxOutputChars: 10, handler: () => 'x' }));
    expect(names(registry, 'truncated')).toEqual(['read_tool_output']);
  });
});
