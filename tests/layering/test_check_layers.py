#!/usr/bin/env python3
"""The layering checker on a small fake tree (fake/): clean it passes; each
deliberate violation added to a copy of it (an upward include, an upward call,
a cycle within a level, a use of a folder kept apart, a header of two
folders, a folder outside the order) fails with a message naming the file,
the line and the two folders.

usage: test_check_layers.py CC NM"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, 'check_layers.py')
CC, NM = sys.argv[1], sys.argv[2]


def compile_tree(src, build, only=None):
    """Compile src's .c files (those of `only` when given) where CMake puts
    the objects of a target `fake`; returns every object of the tree."""
    objects = []
    for root, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith('.c'):
                continue
            rel = os.path.relpath(os.path.join(root, name), src)
            obj = os.path.join(build, 'src/CMakeFiles/fake.dir', rel + '.o')
            if only is None or rel in only:
                os.makedirs(os.path.dirname(obj), exist_ok=True)
                subprocess.run([CC, '-c', '-I', os.path.join(src, 'include'),
                                os.path.join(src, rel), '-o', obj], check=True)
            objects.append(obj)
    return objects


class FakeTree:
    """A copy of fake/ and its objects, compiled once for all the cases."""
    base = None

    def __init__(self, tmp):
        self.root = os.path.join(tmp, 'tree')
        self.build = os.path.join(tmp, 'build')
        shutil.copytree(os.path.join(FakeTree.base, 'tree'), self.root)
        shutil.copytree(os.path.join(FakeTree.base, 'build'), self.build)
        self.src = os.path.join(self.root, 'src')
        self.added = set()

    @staticmethod
    def prepare(tmp):
        shutil.copytree(os.path.join(HERE, 'fake'), os.path.join(tmp, 'tree'))
        compile_tree(os.path.join(tmp, 'tree/src'), os.path.join(tmp, 'build'))
        FakeTree.base = tmp

    def write(self, rel, text):
        path = os.path.join(self.src, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)
        self.added.add(rel)

    def check(self):
        # A changed header changes no object of this tree that a case relies on.
        objects = compile_tree(self.src, self.build, self.added)
        listing = os.path.join(self.build, 'objects.txt')
        with open(listing, 'w', encoding='utf-8') as f:
            f.write('\n'.join(objects) + '\n')
        res = subprocess.run([sys.executable, CHECKER, '--src', self.src,
                              '--layers', os.path.join(self.root, 'ARCHITECTURE.md'),
                              '--objects', listing, '--build-dir', self.build, '--nm', NM],
                             capture_output=True, text=True)
        return res.returncode, res.stdout + res.stderr


class CheckLayers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base = tempfile.mkdtemp()
        FakeTree.prepare(cls.base)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.base)

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.tree = FakeTree(self.tmp)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def fails_with(self, *expected):
        rc, out = self.tree.check()
        self.assertEqual(rc, 1, out)
        for text in expected:
            self.assertIn(text, out)

    def test_clean_tree_passes(self):
        rc, out = self.tree.check()
        self.assertEqual(rc, 0, out)
        self.assertIn('all down the layer order', out)

    def test_upward_include_fails(self):
        self.tree.write('low/upward.c', '#include "rpl/high.h"\n\nint upward(void);\n')
        self.fails_with('low -> high goes up the layer order',
                        'src/low/upward.c:1: includes rpl/high.h (of high)')

    def test_upward_call_without_include_fails(self):
        self.tree.write('low/upward.c', 'int high_value(void);\n\n'
                        'int upward(void)\n{\n    return high_value();\n}\n')
        self.fails_with('low -> high goes up the layer order',
                        'src/low/upward.c:5: calls high_value (of high)')

    def test_cycle_within_a_level_fails(self):
        self.tree.write('high/back.c', '#include "rpl/side.h"\n\n'
                        'int back(void)\n{\n    return side_value();\n}\n')
        self.fails_with('cycle between folders high, side',
                        'src/high/back.c:1: includes rpl/side.h (of side)',
                        'src/side/side.c:1: includes rpl/high.h (of high)')

    def test_folder_kept_apart_uses_only_its_list(self):
        self.tree.write('tool/more.c', '#include "rpl/high.h"\n\n'
                        'int more(void)\n{\n    return high_value();\n}\n')
        self.fails_with('tool -> high: tool is kept apart and may use only low',
                        'src/tool/more.c:5: calls high_value (of high)')

    def test_nothing_uses_a_folder_kept_apart(self):
        self.tree.write('high/use_tool.c', 'int tool_value(void);\n\n'
                        'int use_tool(void)\n{\n    return tool_value();\n}\n')
        self.fails_with('high -> tool: nothing may use tool, it is kept apart')

    def test_header_of_two_folders_fails(self):
        self.tree.write('include/rpl/low.h', '#ifndef FAKE_LOW_H\n#define FAKE_LOW_H\n'
                        'int low_value(void);\nint side_value(void);\n#endif\n')
        self.fails_with('src/include/rpl/low.h: declares functions of low (low_value), '
                        'side (side_value)')

    def test_folder_outside_the_order_fails(self):
        self.tree.write('extra/extra.c', '#include "rpl/low.h"\n\n'
                        'int extra(void)\n{\n    return low_value();\n}\n')
        self.fails_with('extra: folder is not in the layers block')


if __name__ == '__main__':
    unittest.main(argv=sys.argv[:1])
